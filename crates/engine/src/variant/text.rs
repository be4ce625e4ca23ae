//! Files as players and GMs save them: bytes into text, with the encoding's errors placed.
//!
//! Accepted: UTF-8, with or without a byte-order mark, and UTF-16 (little or big endian) with its
//! byte-order mark. Anything else is refused with the line and column of the first byte that is
//! not UTF-8, rather than guessed at (a Latin-1 guess would read some other encoding's bytes as
//! wrong letters without a word).

/// Why bytes are not text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// A byte that is not UTF-8, and no byte-order mark said otherwise.
    #[error(
        "line {line}, column {column}: byte 0x{byte:02X} is not UTF-8 (Latin-1 or Windows-1252 \
         text?): save the file as UTF-8"
    )]
    NotUtf8 {
        /// The 1-based line.
        line: usize,
        /// The 1-based column, in characters, of the bad byte.
        column: usize,
        /// The byte.
        byte: u8,
    },
    /// A UTF-16 file (it said so with its byte-order mark) with a broken character or an odd
    /// length.
    #[error("line {line}: broken UTF-16 text: save the file as UTF-8")]
    BadUtf16 {
        /// The 1-based line of the break.
        line: usize,
    },
}

/// The text of a file's bytes: UTF-8 (a byte-order mark dropped), or UTF-16 with its mark.
pub fn decode(bytes: &[u8]) -> Result<String, DecodeError> {
    if let Some(rest) = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        return utf8(rest);
    }
    if let Some(rest) = bytes.strip_prefix(&[0xFF, 0xFE]) {
        return utf16(rest, u16::from_le_bytes);
    }
    if let Some(rest) = bytes.strip_prefix(&[0xFE, 0xFF]) {
        return utf16(rest, u16::from_be_bytes);
    }
    utf8(bytes)
}

fn utf8(bytes: &[u8]) -> Result<String, DecodeError> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok(text.to_string()),
        Err(e) => {
            let good = &bytes[..e.valid_up_to()];
            // The valid prefix is UTF-8, so it reads as text for counting lines and columns.
            let before = String::from_utf8_lossy(good);
            let line_start = before.rfind('\n').map_or(0, |n| n + 1);
            Err(DecodeError::NotUtf8 {
                line: before.matches('\n').count() + 1,
                column: before[line_start..].chars().count() + 1,
                byte: bytes[e.valid_up_to()],
            })
        }
    }
}

fn utf16(bytes: &[u8], unit: fn([u8; 2]) -> u16) -> Result<String, DecodeError> {
    let mut text = String::with_capacity(bytes.len() / 2);
    let broken = |text: &str| DecodeError::BadUtf16 {
        line: text.matches('\n').count() + 1,
    };
    if !bytes.len().is_multiple_of(2) {
        // Decode what there is first, so the error names the line the text breaks off on.
        let whole = utf16(&bytes[..bytes.len() - 1], unit)?;
        return Err(broken(&whole));
    }
    let units = bytes.chunks_exact(2).map(|c| unit([c[0], c[1]]));
    for c in char::decode_utf16(units) {
        match c {
            Ok(c) => text.push(c),
            Err(_) => return Err(broken(&text)),
        }
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_with_and_without_a_byte_order_mark() {
        assert_eq!(decode(b"A Par H\n").as_deref(), Ok("A Par H\n"));
        assert_eq!(decode(b"\xEF\xBB\xBFA Par H").as_deref(), Ok("A Par H"));
    }

    #[test]
    fn utf16_either_endian_with_its_mark() {
        let le: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain("Côte\nA".encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        let be: Vec<u8> = [0xFE, 0xFF]
            .into_iter()
            .chain("Côte\nA".encode_utf16().flat_map(u16::to_be_bytes))
            .collect();
        assert_eq!(decode(&le).as_deref(), Ok("Côte\nA"));
        assert_eq!(decode(&be).as_deref(), Ok("Côte\nA"));
        assert_eq!(decode(&le[..5]), Err(DecodeError::BadUtf16 { line: 1 }));
    }

    #[test]
    fn a_latin1_byte_is_placed_by_line_and_column() {
        // "Côte" saved as Latin-1 on line 2: the ô is one byte, 0xF4.
        assert_eq!(
            decode(b"A Par H\nA C\xF4te H\n"),
            Err(DecodeError::NotUtf8 {
                line: 2,
                column: 4,
                byte: 0xF4
            })
        );
    }
}
