#!/usr/bin/env bash
# Measures the judge as a service (issue 22), figures in docs/performance.md:
#  1. `napjudge serve` idle for a minute on an IMAP mailbox (IDLE): CPU time and resident memory;
#  2. 1,000 mails through IMAP to their queued replies, by `mail poll --imap` (one poll):
#     HELP mails (intake, storage, the reply; no password), order mails (the same plus the
#     password check and the orders), and the same 1,000 fetched again once stored (the IMAP
#     fetch and move alone);
#  3. 1,000 order mails delivered while `serve` waits in IDLE, to the last one answered.
# Needs Dovecot (apt-get install dovecot-imapd), run as root (Dovecot's mail then belongs to
# nobody), and a release build: cargo build --release; bash benches/serve.sh
# PERF=1 samples serve during the burst with perf (where napjudge's own time goes).
# The work folder (Dovecot's mail, the judge's database) is removed at the end; KEEP=1 keeps it.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${NAPJUDGE:-$PWD/target/release/napjudge}
N=${N:-1000}
W=$(mktemp -d /tmp/napjudge-serve-bench.XXXXXX)
cleanup() {
    kill "$(cat "$W/dovecot.pid" 2>/dev/null)" 2>/dev/null || true
    [ -n "${SERVE:-}" ] && kill "$SERVE" 2>/dev/null || true
    wait 2>/dev/null || true
    if [ -n "${KEEP:-}" ]; then echo "work folder kept: $W"; else rm -rf "$W"; fi
}
trap cleanup EXIT
chmod 755 "$W"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
M=$W/mail/judge
mkdir -p "$M"/{new,cur,tmp} "$W/run"
echo "judge:{PLAIN}pw-imap:65534:65534::$M" > "$W/passwd"
cat > "$W/dovecot.conf" <<EOF
base_dir = $W/run
state_dir = $W/run
listen = 127.0.0.1
protocols = imap
default_internal_user = dovecot
default_login_user = dovenull
default_internal_group = dovecot
first_valid_uid = 0
log_path = $W/dovecot.log
ssl = required
ssl_cert = <$PWD/tests/smtp/server.pem
ssl_key = <$PWD/tests/smtp/server.key
passdb {
  driver = passwd-file
  args = scheme=PLAIN $W/passwd
}
userdb {
  driver = passwd-file
  args = $W/passwd
}
mail_location = maildir:$W/mail/%u
service imap-login {
  inet_listener imap {
    port = 0
  }
  inet_listener imaps {
    address = 127.0.0.1
    port = $PORT
    ssl = yes
  }
}
EOF
chown -R 65534:65534 "$W/mail"
dovecot -F -c "$W/dovecot.conf" & echo $! > "$W/dovecot.pid"
until python3 -c "import socket; socket.create_connection(('127.0.0.1',$PORT))" 2>/dev/null; do sleep 0.1; done

J=$W/judge
"$B" init "$J" > /dev/null
cat > "$J/napjudge.toml" <<EOF
[judge]
address = "judge@example.org"
[imap]
host = "localhost"
port = $PORT
user = "judge"
password_env = "BENCH_IMAP"
ca_file = "$PWD/tests/smtp/ca.pem"
[outbox]
dir = "out"
EOF
export BENCH_IMAP=pw-imap
DB=$J/napjudge.db
run() { "$B" --db "$DB" "$@"; }
run game create g --gm gm@example.org --winter 30d > /dev/null
for p in Austria England France Prussia Russia; do
    run game assign g $p "$(echo $p | tr A-Z a-z)@example.org" --password "pw-$p" > /dev/null
done
run game start g > /dev/null
# Spring 1801 Movement, the Winter's bids skipped: the order mails are movement orders, validated
# and warned about. Russia sends none, so the phase waits for its deadline through the runs.
run game process g --now-anyway > /dev/null

# $1: how many, $2: help|orders, $3: first number (Message-IDs, dates and texts differ: the
# same text again in a phase is refused as a replay, unread, so the case of the orders' letters
# spells the mail's number).
deliver() {
    python3 - "$M" "$1" "$2" "$3" <<'EOF'
import os, sys
m, n, kind, first = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
orders = {
    "Austria": "A(Vie)-Boh\nA(Bud)-Gal\nA(Tra) H\nF(Dal)-ADR",
    "England": "F(Lon)-NTH\nF(Sco)-NWG\nA(Lpl)-Wal\nF(Sar)-TYS",
    "France": "A(Par)-Bur\nF(Bre)-MAO\nF(Mar)-GOL\nA(Bor) H",
    "Prussia": "A(Ber)-Sax\nA(Kon) H\nA(Kol) H\nA(Brt) H",
}
powers = list(orders)
def spelled(text, v):
    out, bit = [], 0
    for c in text:
        if c.isalpha():
            c = c.upper() if (v >> bit) & 1 else c.lower()
            bit += 1
        out.append(c)
    return "".join(out)
for i in range(first, first + n):
    p = powers[i % 4]
    body = "HELP" if kind == "help" else f"SIGNON {p} g pw-{p}\n{spelled(orders[p], i // 4)}"
    date = f"Wed, 01 Jul 2026 {10 + i // 3600 % 10:02d}:{i // 60 % 60:02d}:{i % 60:02d} +0000"
    text = (f"From: {p.lower()}@example.org\nTo: judge@example.org\nSubject: orders {i}\n"
            f"Message-ID: <bench-{kind}-{i}@example.org>\nDate: {date}\n\n{body}\n")
    name = f"{1700000000 + i}.M{i}P1.bench"
    with open(os.path.join(m, "tmp", name), "w", newline="\r\n") as f:
        f.write(text)
    os.chown(os.path.join(m, "tmp", name), 65534, 65534)
    os.rename(os.path.join(m, "tmp", name), os.path.join(m, "new", name))
EOF
}
inbox() { find "$M/new" "$M/cur" -type f | wc -l; }
timed() { # label, command...
    local label=$1; shift
    /usr/bin/time -f "$label: %e s wall, %U s user, %S s system, %M KB max resident" "$@" > /dev/null
}

echo "== serve idle, one minute"
"$B" --db "$DB" serve > "$W/serve-idle.log" 2>&1 & SERVE=$!
sleep 5
ticks() { awk '{print $14 + $15}' "/proc/$SERVE/stat"; }
rss() { awk '/VmRSS/ {print $2}' "/proc/$SERVE/status"; }
t0=$(ticks); r0=$(rss)
sleep 60
t1=$(ticks); r1=$(rss)
echo "CPU: $((t1 - t0)) ticks of 1/$(getconf CLK_TCK) s in 60 s; resident memory: $r0 KB at the start, $r1 KB after a minute"
kill -TERM $SERVE; wait $SERVE || true; SERVE=

echo "== $N mails through mail poll --imap"
deliver "$N" help 0
timed "$N HELP mails" "$B" --db "$DB" mail poll --imap
deliver "$N" orders "$N"
timed "$N order mails (password checked)" "$B" --db "$DB" mail poll --imap
# The same files again: stored already, so fetched, known by digest and moved only.
for f in "$M"/.napjudge-answered/new/* "$M"/.napjudge-answered/cur/*; do
    [ -e "$f" ] || continue
    n=$(basename "$f"); n=${n%%:*}
    cp "$f" "$M/new/$n.again"; chown 65534:65534 "$M/new/$n.again"
done
timed "$((2 * N)) mails fetched again (IMAP fetch and move only)" "$B" --db "$DB" mail poll --imap

echo "== $N order mails through serve (IDLE)"
"$B" --db "$DB" serve > "$W/serve-burst.log" 2>&1 & SERVE=$!
sleep 3
if [ -n "${PERF:-}" ]; then
    perf record -q -F 499 -g -p "$SERVE" -o "$W/perf.data" 2> /dev/null & PERFPID=$!
    sleep 1
fi
t0=$(ticks)
start=$(date +%s.%N)
deliver "$N" orders "$((2 * N))"
while [ "$(inbox)" -gt 0 ]; do sleep 0.2; done
end=$(date +%s.%N)
t1=$(ticks)
[ -n "${PERF:-}" ] && { kill -INT $PERFPID; wait $PERFPID || true; }
kill -TERM $SERVE; wait $SERVE || true; SERVE=
hz=$(getconf CLK_TCK)
python3 -c "d=$end-$start; c=($t1-$t0)/$hz; print(f'serve: $N order mails answered in {d:.1f} s, {$N/d:.1f} mails/s; serve CPU {c:.2f} s, {1000*c/$N:.1f} ms a mail')"
echo "answered: $(grep -c 'answered' "$W/serve-burst.log" || true) log lines with 'answered'; replies queued: $(ls "$J/out" 2>/dev/null | wc -l)"
if [ -n "${PERF:-}" ]; then
    echo "== where serve's CPU went (perf, self time by shared object, then the top symbols)"
    # sed, not head: head's early exit would stop the script (pipefail).
    perf report -i "$W/perf.data" --no-children --sort dso --stdio -g none 2> /dev/null | grep -v '^#' | grep -v '^$' | sed -n 1,6p
    perf report -i "$W/perf.data" --no-children --sort symbol --stdio -g none 2> /dev/null | grep -v '^#' | grep -v '^$' | cut -c1-110 | sed -n 1,25p
fi
