//! A game's or a case's rule switches are read in one place ([`RuleOption`]), and the
//! `webdiplomacy` switch chooses a rule edition, a bundle of policies (RULINGS "Rule editions").

use napjudge_engine::variant::{
    load_named, CivilDisorder, ConvoyIntent, Edition, OptionError, RuleOption, Trapped, Unconvoyed,
};

/// `NAME` alone is on; `NAME=on|off` in any case, with spaces around `=`; an alias reads as the
/// switch's own name.
#[test]
fn an_option_is_a_name_alone_or_name_equals_on_or_off() {
    let read = |text: &str| RuleOption::parse(text).map(|o| o.to_string());
    assert_eq!(read("webdiplomacy"), Ok("webdiplomacy=on".into()));
    assert_eq!(read("WebDiplomacy = OFF"), Ok("webdiplomacy=off".into()));
    assert_eq!(
        read("edition-webdiplomacy=yes"),
        Ok("webdiplomacy=on".into())
    );
    assert_eq!(read("rule12"), Ok("adoption=on".into()));
    assert_eq!(read("starvation=false"), Ok("starvation=off".into()));
}

/// A value that is not on or off, and a name no switch has, are refused, naming what to fix.
#[test]
fn a_bad_option_says_what_to_write() {
    let e = RuleOption::parse("webdiplomacy=maybe").unwrap_err();
    assert_eq!(
        e,
        OptionError::NotOnOff {
            key: "webdiplomacy".into(),
            value: "maybe".into()
        }
    );
    assert_eq!(
        e.to_string(),
        "option webdiplomacy: 'maybe' is not on or off"
    );
    let e = RuleOption::parse("no-such-rule").unwrap_err();
    assert!(
        e.to_string()
            .starts_with("unknown option 'no-such-rule': the rule switches are second-moves,"),
        "{e}"
    );
    assert!(e.to_string().contains("webdiplomacy"), "{e}");
}

/// Rule editions: `webdiplomacy` on gives webDiplomacy's three policies, off (the default) the
/// DATC's; the last option written wins.
#[test]
fn the_webdiplomacy_switch_chooses_the_edition() {
    let board = load_named("standard").expect("the standard board loads");
    assert_eq!(board.rules.edition, Edition::datc());
    let web = board.with_options(&["webdiplomacy"]).expect("a switch");
    assert_eq!(
        web.rules.edition,
        Edition {
            civil_disorder: CivilDisorder::FarthestFromHomeCentres,
            convoy_intent: ConvoyIntent::WrittenOnly,
            unconvoyed: Unconvoyed::Overland,
            trapped: Trapped::OwesADisband,
        }
    );
    let back = web
        .with_options(&["webdiplomacy=off".to_string()])
        .expect("a switch");
    assert_eq!(
        back.rules.edition,
        Edition {
            civil_disorder: CivilDisorder::FarthestFromOwnedCentres,
            convoy_intent: ConvoyIntent::WrittenOrOwnConvoy,
            unconvoyed: Unconvoyed::Fails,
            trapped: Trapped::OwesNothing,
        }
    );
    let last = board
        .with_options(&["webdiplomacy", "webdiplomacy=off"])
        .expect("switches");
    assert_eq!(last.rules.edition, Edition::datc());
    assert!(board.with_options(&["webdiplomacy", "nonsense"]).is_err());
}
