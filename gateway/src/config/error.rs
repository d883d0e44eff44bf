//! Why a configuration was refused (below the configuration types).

use std::path::PathBuf;

/// Why a configuration was refused.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The path given.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not valid TOML, or is valid TOML that does not match the schema (unknown
    /// field, wrong type, unknown enum value, missing field); the message names the field and
    /// its section.
    #[error("{0}")]
    Parse(Box<ParseError>),
    /// A field has a value outside its allowed range.
    #[error("invalid {field}: {reason}")]
    Invalid {
        /// Dotted field name, e.g. `exchange.ping_interval_ms`.
        field: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// An exchange credential is empty in the file and in the environment.
    #[error("missing {0} (set it in the file or in the environment)")]
    MissingCredential(&'static str),
    /// No `[[session]]` entry.
    #[error("no [[session]] configured")]
    NoSessions,
    /// Two `[[session]]` entries share a `session_id`.
    #[error("duplicate session_id {0}")]
    DuplicateSession(u64),
    /// A `[[session]]` names an account no `[[account]]` defines.
    #[error("session {session_id}: unknown account {account:?}")]
    UnknownAccount {
        /// The session.
        session_id: u64,
        /// The name given.
        account: String,
    },
    /// Two `[[account]]` entries share a name.
    #[error("duplicate account name {0:?}")]
    DuplicateAccount(String),
    /// An `[[account]]` lacks a credential in the file and in the environment.
    #[error("account {account:?}: missing {field} (set it in the file or in {env_var})")]
    MissingAccountCredential {
        /// The account name.
        account: String,
        /// `api_key`, `secret` or `passphrase`.
        field: &'static str,
        /// The environment variable that would provide it.
        env_var: String,
    },
}

pub(super) fn invalid(field: &'static str, reason: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        field,
        reason: reason.into(),
    }
}

/// Why the configuration text could not be read into the configuration types.
#[derive(Debug)]
pub struct ParseError {
    /// What is wrong.
    pub kind: ParseErrorKind,
    /// `[section]` (or `[[section]]`) holding the offending field; empty at the top level.
    pub section: String,
    /// 1-based line of the offending key or value (0 when unknown).
    pub line: usize,
    /// The error as toml/serde reported it.
    pub source: toml::de::Error,
}

/// The kinds of [`ParseError`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseErrorKind {
    /// The text is not valid TOML.
    Syntax,
    /// A field the section does not have; `expected` lists the valid ones.
    UnknownField {
        /// The field as written.
        field: String,
        /// serde's list of valid fields (`` `a`, `b` ``), possibly empty.
        expected: String,
    },
    /// A field whose value has the wrong type.
    WrongType {
        /// The field.
        field: String,
        /// The type wanted (`u32`, `a string`, ...).
        expected: String,
        /// What was found (`string "abc"`, `integer `5``, ...).
        found: String,
    },
    /// An enum field with a value that is not one of its variants.
    UnknownValue {
        /// The field.
        field: String,
        /// The value and the valid ones, as serde says it.
        detail: String,
    },
    /// A required field is absent.
    MissingField {
        /// The field.
        field: String,
    },
    /// Any other mismatch with the schema (serde's message).
    Other(String),
}

impl ParseError {
    /// Classifies a toml/serde error on `text` (the whole configuration file).
    pub fn new(text: &str, source: toml::de::Error) -> ParseError {
        let syntax = toml::from_str::<toml::Table>(text).is_err();
        let span = source.span();
        let (section, line, key) = match &span {
            Some(span) => locate(text, span.start),
            None => (String::new(), 0, String::new()),
        };
        let msg = source.message().trim();
        let kind = if syntax {
            ParseErrorKind::Syntax
        } else if let Some(rest) = msg.strip_prefix("unknown field ") {
            let (field, expected) = split_quoted(rest);
            ParseErrorKind::UnknownField {
                field,
                expected: expected
                    .trim_start_matches(',')
                    .trim()
                    .trim_start_matches("expected")
                    .trim()
                    .to_owned(),
            }
        } else if let Some(rest) = msg.strip_prefix("invalid type: ") {
            let (found, expected) = rest.rsplit_once(", expected ").unwrap_or((rest, ""));
            ParseErrorKind::WrongType {
                field: key,
                expected: expected.to_owned(),
                found: found.to_owned(),
            }
        } else if msg.starts_with("unknown variant ") || msg.starts_with("invalid value: ") {
            ParseErrorKind::UnknownValue {
                field: key,
                detail: msg.to_owned(),
            }
        } else if let Some(rest) = msg.strip_prefix("missing field ") {
            ParseErrorKind::MissingField {
                field: split_quoted(rest).0,
            }
        } else {
            ParseErrorKind::Other(msg.to_owned())
        };
        ParseError {
            kind,
            section,
            line,
            source,
        }
    }
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let section = if self.section.is_empty() {
            "the top level"
        } else {
            self.section.as_str()
        };
        match &self.kind {
            ParseErrorKind::Syntax => return write!(f, "invalid TOML: {}", self.source),
            ParseErrorKind::UnknownField { field, expected } => {
                write!(f, "unknown field `{field}` in {section}")?;
                if !expected.is_empty() {
                    write!(f, " (expected {expected})")?;
                }
            }
            ParseErrorKind::WrongType {
                field,
                expected,
                found,
            } => write!(
                f,
                "wrong type for `{field}` in {section}: expected {expected}, found {found}"
            )?,
            ParseErrorKind::UnknownValue { field, detail } => {
                write!(f, "invalid value for `{field}` in {section}: {detail}")?
            }
            ParseErrorKind::MissingField { field } => {
                write!(f, "missing field `{field}` in {section}")?
            }
            ParseErrorKind::Other(msg) => write!(f, "{msg} in {section}")?,
        }
        if self.line > 0 {
            write!(f, " (line {})", self.line)?;
        }
        Ok(())
    }
}

impl std::error::Error for ParseError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// `` `x`, rest `` → (`x`, rest); without backquotes the whole text is the name.
fn split_quoted(s: &str) -> (String, &str) {
    let s = s.trim();
    if let Some(inner) = s.strip_prefix('`') {
        if let Some(end) = inner.find('`') {
            return (inner[..end].to_owned(), &inner[end + 1..]);
        }
    }
    (s.to_owned(), "")
}

/// For the byte offset `at` of `text`: the table header in force (`[x]` / `[[x]]`, empty at the
/// top level), the 1-based line, and the key written on that line (before `=`).
fn locate(text: &str, at: usize) -> (String, usize, String) {
    let at = at.min(text.len());
    let before = text.get(..at).unwrap_or("");
    let line_no = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = text[line_start..].lines().next().unwrap_or("");
    let mut section = String::new();
    for l in text[..line_start].lines().chain(std::iter::once(line)) {
        let t = l.trim();
        if t.starts_with('[') {
            section = t.split('#').next().unwrap_or(t).trim().to_owned();
        }
    }
    let key = line
        .split_once('=')
        .map(|(k, _)| k.trim().trim_matches('"').to_owned())
        .unwrap_or_default();
    (section, line_no, key)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_err(text: &str) -> String {
        #[derive(Debug, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct Inner {
            port: u32,
            #[serde(default)]
            mode: Option<Mode>,
        }
        #[derive(Debug, serde::Deserialize)]
        #[serde(rename_all = "snake_case")]
        enum Mode {
            Fast,
        }
        #[derive(Debug, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct Top {
            name: String,
            inner: Inner,
        }
        let e = toml::from_str::<Top>(text).expect_err("refused");
        ParseError::new(text, e).to_string()
    }

    #[test]
    fn messages_name_the_field_and_section() {
        let m = parse_err("name = \"a\"\n[inner]\nport = 1\ncolour = 2\n");
        assert!(
            m.starts_with("unknown field `colour` in [inner] (expected `port` or `mode`)"),
            "{m}"
        );
        assert!(m.ends_with("(line 4)"), "{m}");
        let m = parse_err("name = \"a\"\n[inner]\nport = \"eighty\"\n");
        assert!(
            m.starts_with("wrong type for `port` in [inner]: expected u32, found string"),
            "{m}"
        );
        let m = parse_err("name = \"a\"\n[inner]\nport = 1\nmode = \"slow\"\n");
        assert!(
            m.starts_with("invalid value for `mode` in [inner]: unknown variant `slow`"),
            "{m}"
        );
        let m = parse_err("name = \"a\"\nnick = 1\n[inner]\nport = 1\n");
        assert!(
            m.starts_with("unknown field `nick` in the top level"),
            "{m}"
        );
        let m = parse_err("name = \"a\"\n[inner]\n");
        assert!(m.starts_with("missing field `port`"), "{m}");
        assert!(!m.contains("invalid TOML"), "{m}");
        // Real syntax errors still say so.
        let m = parse_err("name = \"a\n[inner\n");
        assert!(m.starts_with("invalid TOML: "), "{m}");
    }
}
