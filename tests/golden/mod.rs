//! What the golden mail tests share: the state of the database as text, compared before and
//! after each step named `bad-*`, which must change nothing.

use std::path::Path;

/// The rows `queries` read from the database at `db`, as text (a connection of its own: the
/// judge's store has none to lend): the golden tests compare it before and after a bad mail,
/// which must change nothing.
// mail_warnings has no bad step to compare.
#[allow(dead_code)]
pub fn dump(db: &Path, queries: &[&str]) -> String {
    let conn = rusqlite::Connection::open(db).expect("db");
    let mut out = String::new();
    for sql in queries {
        let mut st = conn.prepare(sql).expect("query");
        let n = st.column_count();
        let rows = st
            .query_map([], |r| {
                (0..n)
                    .map(|i| {
                        r.get::<_, rusqlite::types::Value>(i)
                            .map(|v| format!("{v:?}"))
                    })
                    .collect::<Result<Vec<_>, _>>()
            })
            .expect("rows");
        for r in rows {
            out.push_str(&r.expect("row").join("|"));
            out.push('\n');
        }
    }
    out
}

/// A queued mail as the golden files show it: its recipient, subject, kind and body.
// mail_endings and mail_press write a fuller form of their own (recipients grouped, pictures).
#[allow(dead_code)]
pub fn show(m: &napjudge_judge::store::Mail) -> String {
    format!(
        "To: {}\nSubject: {}\nKind: {}\n\n{}=====\n",
        m.to, m.subject, m.kind, m.body
    )
}
