//! The JSON Schemas of numbers too large for a JSON integer everywhere: PySolFC's game
//! numbers (1 ..= 10^20) and a batch's `seed`, which is its first game number in a
//! batch of games.
//!
//! Invariant: each schema takes exactly what `model::pysol`'s reading accepts and what
//! `crate::report::serialize_game_number` writes: an integer up to 2^64-1, or digits
//! (the pattern of 1 ..= max generated from max, leading zeros allowed).

use serde_json::{json, Value};

/// A PySolFC game number from 1 to `max`, in a request (`model::pysol`'s reading) or an
/// answer (`crate::report::serialize_game_number`): a JSON integer (exact up to 2^64-1,
/// JSON's largest here) or a string of digits.
pub(super) fn game_number(max: u128) -> Value {
    let integer_max = u64::try_from(max).unwrap_or(u64::MAX);
    json!({
        "description": "A PySolFC game number: an integer, or a string of digits (above 2^64-1 only a string)",
        "oneOf": [
            {"type": "integer", "minimum": 1, "maximum": integer_max},
            {"type": "string", "pattern": digits_up_to(max)},
        ],
    })
}

/// A batch's `seed` in an answer: a deal number (0 ..= 2^63-1) or, in a batch of PySolFC
/// games, its first game number (up to 10^20), written as a game number is.
pub(super) fn batch_seed() -> Value {
    json!({
        "description": "The first deal number, or the first PySolFC game number",
        "oneOf": [
            {"type": "integer", "minimum": 0, "maximum": u64::MAX},
            {"type": "string", "pattern": "^[0-9]{1,21}$"},
        ],
    })
}

/// A pattern of the strings of digits naming a number from 1 to `max`.
pub(super) fn digits_up_to(max: u128) -> String {
    format!("^{}$", number_up_to(max))
}

/// A regular expression (no anchors) of the numbers 1 ..= `max` written in decimal,
/// leading zeros allowed: the numbers with fewer digits than `max`, then for each digit
/// of `max` those sharing its digits before and smaller there, then `max` itself.
pub(super) fn number_up_to(max: u128) -> String {
    let digits: Vec<u8> = max.to_string().bytes().map(|b| b - b'0').collect();
    let len = digits.len();
    let mut cases = Vec::new();
    if len > 1 {
        cases.push(format!("[1-9][0-9]{{0,{}}}", len - 2));
    }
    for (i, &d) in digits.iter().enumerate() {
        let low = u8::from(i == 0);
        if d > low {
            let prefix: String = digits[..i].iter().map(|d| char::from(b'0' + d)).collect();
            let rest = len - i - 1;
            let tail = if rest > 0 {
                format!("[0-9]{{{rest}}}")
            } else {
                String::new()
            };
            cases.push(format!("{prefix}[{low}-{}]{tail}", d - 1));
        }
    }
    cases.push(max.to_string());
    format!("0*({})", cases.join("|"))
}

#[cfg(test)]
mod tests {
    use super::{digits_up_to, number_up_to};

    /// The pattern of 1 ..= max takes exactly those numbers, with and without leading
    /// zeros, for every max up to 1,200 and for PySolFC's largest.
    #[test]
    fn the_number_pattern_is_exactly_one_to_its_maximum() {
        for max in 1..=1200u128 {
            let pattern = regex::Regex::new(&digits_up_to(max)).unwrap();
            for n in 0..=1300u128 {
                let expected = (1..=max).contains(&n);
                assert_eq!(
                    pattern.is_match(&n.to_string()),
                    expected,
                    "{n} of 1..={max}"
                );
                assert_eq!(pattern.is_match(&format!("00{n}")), expected, "00{n}");
            }
            assert!(!pattern.is_match("") && !pattern.is_match("1a") && !pattern.is_match("-1"));
        }
        let largest = regex::Regex::new(&digits_up_to(gaps_engine::PYSOL_MAX_NUMBER)).unwrap();
        for (digits, expected) in [
            ("100000000000000000000", true),
            ("99999999999999999999", true),
            ("100000000000000000001", false),
            ("200000000000000000000", false),
            ("0000100000000000000000000", true),
            ("1000000000000000000000", false),
            ("0", false),
        ] {
            assert_eq!(largest.is_match(digits), expected, "{digits}");
        }
        assert!(number_up_to(9).starts_with("0*("));
    }
}
