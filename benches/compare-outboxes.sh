#!/usr/bin/env bash
# Compares two replays' outboxes mail by mail, byte for byte, once each mail's Message-ID and
# MIME boundaries are blanked (both differ from run to run by design). Prints the mails that
# differ and exits 1 if any does, or if the two hold different files (issue 35: a speed-up
# must not change one mail's bytes).
#
#   napjudge replay fixtures/games/ --outbox /tmp/before   # with the binary before
#   napjudge replay fixtures/games/ --outbox /tmp/after    # with the binary after
#   bash benches/compare-outboxes.sh /tmp/before /tmp/after
set -euo pipefail
a=${1:?usage: compare-outboxes.sh OUTBOX_BEFORE OUTBOX_AFTER}
b=${2:?usage: compare-outboxes.sh OUTBOX_BEFORE OUTBOX_AFTER}
exec perl -e '
use strict; use warnings; use File::Find;
my ($a, $b) = @ARGV;
sub files { my ($root) = @_; my @f;
    find({ no_chdir => 1, wanted => sub { push @f, substr($_, length($root) + 1) if /\.eml$/ } }, $root);
    return join("\n", sort @f) }
# The mail with its Message-ID value and every declared boundary replaced by fixed words.
sub normal { my ($path) = @_; open(my $fh, "<:raw", $path) or die "$path: $!"; local $/; my $m = <$fh>;
    my %bd; $bd{$1} = 1 while $m =~ /boundary="([^"]+)"/g;
    for my $x (keys %bd) { $m =~ s/\Q$x\E/BOUNDARY/g }
    $m =~ s/^(Message-ID:)[^\n]*(\n[ \t][^\n]*)*/$1 <BLANK>/mig;
    return $m }
my ($fa, $fb) = (files($a), files($b));
if ($fa ne $fb) { print "the two outboxes hold different mail files\n"; exit 1 }
my ($n, $differ) = (0, 0);
for my $f (split /\n/, $fa) {
    $n++;
    next if normal("$a/$f") eq normal("$b/$f");
    $differ++;
    print "differs: $f\n" if $differ <= 10;
}
print "$n mails compared, $differ differ (Message-IDs and MIME boundaries blanked)\n";
exit($differ ? 1 : 0);
' "$a" "$b"
