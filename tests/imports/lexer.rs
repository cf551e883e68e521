//! The sources read as text for `imports`: comments and string literals removed, test
//! code cut out, and the paths a file names (each `use` tree expanded, inline paths
//! from `crate::` or `super::`).
//!
//! Invariant: this reads this code base's style, not all of Rust: attributes are
//! written `#[cfg(test)]` without spaces, and a path is named by `use` or inline.

/// The source without comments, and with string and character literals emptied.
pub(super) fn lex(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if c == 'r' && matches!(next, Some('"') | Some('#')) && !ident_before(&chars, i) {
            // A raw string: r"..." or r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= chars.len() {
                    break;
                }
                if chars[j] == '"' && (1..=hashes).all(|k| chars.get(j + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' && (next == Some('\\') || chars.get(i + 2) == Some(&'\'')) {
            // A character literal ('"', '\'', '\n'); a lifetime has no closing quote.
            i += if next == Some('\\') { 2 } else { 1 };
            while i < chars.len() && chars[i] != '\'' {
                i += 1;
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn ident_before(chars: &[char], i: usize) -> bool {
    i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
}

/// The lexed text without `#[cfg(test)]` items (a module block or one `use`).
pub(super) fn strip_test_code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let item = &rest[at + "#[cfg(test)]".len()..];
        let semicolon = item.find(';').unwrap_or(item.len());
        let brace = item.find('{').unwrap_or(item.len());
        rest = if semicolon < brace {
            &item[semicolon + 1..]
        } else if brace < item.len() {
            let mut depth = 0;
            let mut end = item.len();
            for (k, c) in item[brace..].char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = brace + k + 1;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            &item[end..]
        } else {
            ""
        };
    }
    out.push_str(rest);
    out
}

/// Every path the text names: each `use` tree expanded, and inline paths that start
/// with `crate::` or `super::`.
pub(super) fn named_paths(text: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let tokens = tokens(text);
    let mut i = 0;
    while i < tokens.len() {
        if tokens[i] == "use" && (i == 0 || tokens[i - 1] != "::") {
            let end = tokens[i..]
                .iter()
                .position(|t| t == ";")
                .map_or(tokens.len(), |p| i + p);
            expand(&tokens[i + 1..end], &[], &mut paths);
            i = end;
            continue;
        }
        if (tokens[i] == "crate" || tokens[i] == "super")
            && tokens.get(i + 1).is_some_and(|t| t == "::")
            && (i == 0 || tokens[i - 1] != "::")
        {
            let mut path = vec![tokens[i].clone()];
            let mut j = i + 1;
            while tokens.get(j).is_some_and(|t| t == "::")
                && tokens.get(j + 1).is_some_and(|t| is_ident(t))
            {
                path.push(tokens[j + 1].clone());
                j += 2;
            }
            paths.push(path);
            i = j;
            continue;
        }
        i += 1;
    }
    paths
}

fn is_ident(token: &str) -> bool {
    token
        .chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// Identifiers, `::`, and single punctuation characters.
fn tokens(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            tokens.push(chars[start..i].iter().collect());
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            tokens.push("::".to_string());
            i += 2;
        } else {
            if !c.is_whitespace() {
                tokens.push(c.to_string());
            }
            i += 1;
        }
    }
    tokens
}

/// Expands one `use` tree (`a::{b, c::{d as e, *}}`) into its paths.
fn expand(tree: &[String], prefix: &[String], out: &mut Vec<Vec<String>>) {
    let mut path = prefix.to_vec();
    let mut i = 0;
    while i < tree.len() {
        match tree[i].as_str() {
            "::" => i += 1,
            "{" => {
                // Split the group at its top-level commas.
                let mut depth = 0;
                let mut start = i + 1;
                for j in i..tree.len() {
                    match tree[j].as_str() {
                        "{" => depth += 1,
                        "}" => {
                            depth -= 1;
                            if depth == 0 {
                                expand(&tree[start..j], &path, out);
                                return;
                            }
                        }
                        "," if depth == 1 => {
                            expand(&tree[start..j], &path, out);
                            start = j + 1;
                        }
                        _ => {}
                    }
                }
                return;
            }
            "as" | "*" => break,
            token if is_ident(token) => {
                path.push(token.to_string());
                i += 1;
            }
            _ => i += 1,
        }
    }
    if !path.is_empty() {
        out.push(path);
    }
}
