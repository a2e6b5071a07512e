//! `key=value` overrides of a workload's parameters ([`SetParam`]), so that a driver
//! such as `pausebench --params gcbench.rounds=1,binarytrees.depth=12` can change
//! any parameter without knowing each workload's fields.

use std::str::FromStr;

/// A parameter set that accepts `key=value` overrides.
pub trait SetParam {
    /// The accepted keys, for help texts and error messages.
    const KEYS: &'static [&'static str];

    /// Sets parameter `key` from `value`, or says why it cannot.
    fn set(&mut self, key: &str, value: &str) -> Result<(), String>;
}

/// Parses `value` for parameter `key`, with an error naming both.
pub fn parse_value<T: FromStr>(key: &str, value: &str) -> Result<T, String>
where
    T::Err: std::fmt::Display,
{
    value
        .trim()
        .parse()
        .map_err(|e| format!("{key}={value}: {e}"))
}

/// Splits `key=value` into its two halves (trimmed).
pub fn split_pair(text: &str) -> Result<(&str, &str), String> {
    match text.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim(), v.trim())),
        _ => Err(format!("{text:?} is not key=value")),
    }
}

/// The error for a key `P` does not have.
pub fn unknown_key<P: SetParam>(workload: &str, key: &str) -> String {
    format!(
        "{workload} has no parameter {key:?} (known: {})",
        P::KEYS.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_and_values() {
        assert_eq!(split_pair(" depth = 12 "), Ok(("depth", "12")));
        assert!(split_pair("depth").is_err());
        assert!(split_pair("=3").is_err());
        assert_eq!(parse_value::<u32>("depth", "12"), Ok(12));
        let e = parse_value::<u32>("depth", "-1").unwrap_err();
        assert!(e.contains("depth=-1"), "{e}");
    }
}
