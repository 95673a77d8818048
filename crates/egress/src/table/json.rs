//! A span-keeping JSON reader: just enough structure to find the strings and
//! the arrays of uniform objects inside a tool result, with byte spans into
//! the original text so a rewrite keeps the document's own formatting.
//!
//! The input has already been validated by `serde_json`; this reader still
//! never panics on malformed input (it returns `None`) and bounds its depth.

/// Deepest nesting followed; deeper documents are left alone.
const MAX_DEPTH: usize = 64;

/// One JSON value with its byte span `start..end` in the source text.
#[derive(Debug)]
pub(crate) enum Node {
    /// An object: keys (decoded) and values, in document order.
    Object(Vec<(String, Node)>),
    /// An array, in document order.
    Array(Vec<Node>),
    /// A string: decoded value and the span of the whole literal, quotes included.
    Str(String, usize, usize),
    /// A number, `true`, `false` or `null`: its literal text and span.
    Scalar(String, usize, usize),
}

/// Parse `text` (already known to be valid JSON) into nodes with spans.
pub(crate) fn parse(text: &str) -> Option<Node> {
    let mut reader = Reader {
        bytes: text.as_bytes(),
        text,
        pos: 0,
    };
    reader.skip_ws();
    let node = reader.value(0)?;
    reader.skip_ws();
    (reader.pos == reader.bytes.len()).then_some(node)
}

struct Reader<'a> {
    bytes: &'a [u8],
    text: &'a str,
    pos: usize,
}

impl Reader<'_> {
    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Option<Node> {
        if depth > MAX_DEPTH {
            return None;
        }
        match *self.bytes.get(self.pos)? {
            b'{' => {
                self.pos += 1;
                let mut members = Vec::new();
                self.skip_ws();
                if self.bytes.get(self.pos) == Some(&b'}') {
                    self.pos += 1;
                    return Some(Node::Object(members));
                }
                loop {
                    self.skip_ws();
                    let key = match self.string()? {
                        Node::Str(k, _, _) => k,
                        _ => return None,
                    };
                    self.skip_ws();
                    if self.bytes.get(self.pos) != Some(&b':') {
                        return None;
                    }
                    self.pos += 1;
                    self.skip_ws();
                    let value = self.value(depth + 1)?;
                    members.push((key, value));
                    self.skip_ws();
                    match self.bytes.get(self.pos)? {
                        b',' => self.pos += 1,
                        b'}' => {
                            self.pos += 1;
                            return Some(Node::Object(members));
                        }
                        _ => return None,
                    }
                }
            }
            b'[' => {
                self.pos += 1;
                let mut items = Vec::new();
                self.skip_ws();
                if self.bytes.get(self.pos) == Some(&b']') {
                    self.pos += 1;
                    return Some(Node::Array(items));
                }
                loop {
                    self.skip_ws();
                    items.push(self.value(depth + 1)?);
                    self.skip_ws();
                    match self.bytes.get(self.pos)? {
                        b',' => self.pos += 1,
                        b']' => {
                            self.pos += 1;
                            return Some(Node::Array(items));
                        }
                        _ => return None,
                    }
                }
            }
            b'"' => self.string(),
            _ => {
                let start = self.pos;
                while let Some(b) = self.bytes.get(self.pos) {
                    if matches!(b, b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r') {
                        break;
                    }
                    self.pos += 1;
                }
                if start == self.pos {
                    return None;
                }
                let literal = self.text.get(start..self.pos)?;
                Some(Node::Scalar(literal.to_string(), start, self.pos))
            }
        }
    }

    fn string(&mut self) -> Option<Node> {
        let start = self.pos;
        if self.bytes.get(self.pos) != Some(&b'"') {
            return None;
        }
        self.pos += 1;
        loop {
            match *self.bytes.get(self.pos)? {
                b'\\' => self.pos += 2,
                b'"' => {
                    self.pos += 1;
                    break;
                }
                _ => self.pos += 1,
            }
        }
        let literal = self.text.get(start..self.pos)?;
        let decoded: String = serde_json::from_str(literal).ok()?;
        Some(Node::Str(decoded, start, self.pos))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_point_at_literals() {
        let text = r#"{"a": [1, "x\ny"], "b": {"c": null}}"#;
        let node = parse(text).unwrap();
        let Node::Object(members) = node else {
            panic!("object expected")
        };
        let Node::Array(items) = &members[0].1 else {
            panic!("array expected")
        };
        match &items[1] {
            Node::Str(s, a, b) => {
                assert_eq!(s, "x\ny");
                assert_eq!(&text[*a..*b], r#""x\ny""#);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn malformed_is_none_not_panic() {
        for bad in ["{", "[1,", "\"abc", "{\"a\" 1}", "[1 2]", "\"\\"] {
            assert!(parse(bad).is_none(), "{bad}");
        }
    }
}
