//! Schema conformance: `codec/schema/bgw.xml` (SBE 1.0 XML) against the Rust codec.
//!
//! Computes every message's field offsets, sizes and block length from the XML types (primitive
//! sizes, composites, char arrays, enums' encodingType) and compares them with the codec's
//! `XXX_FIELDS` / `BLOCK_LENGTH` / `TEMPLATE_ID`; compares every XML enum with the Rust enum's
//! wire values; checks that the two sides list the same messages and enums.

#![allow(clippy::unwrap_used)] // test code: a panic is a test failure

use std::collections::{BTreeMap, BTreeSet, HashMap};

use codec::sbe::{self, FieldMeta};
use roxmltree::{Document, Node};

const SBE_NS: &str = "http://fixprotocol.io/2016/sbe";

fn schema_text() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/schema/bgw.xml");
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {path}: {e}"))
}

fn primitive_size(p: &str) -> usize {
    match p {
        "char" | "int8" | "uint8" => 1,
        "int16" | "uint16" => 2,
        "int32" | "uint32" | "float" => 4,
        "int64" | "uint64" | "double" => 8,
        other => panic!("unknown primitive type {other}"),
    }
}

/// (validValue name, wire value) of an XML enum.
type EnumValues = Vec<(String, u8)>;

#[derive(Debug, Clone)]
enum XmlType {
    /// `<type>` (or a bare primitive name): primitive and array length.
    Simple { primitive: String, length: usize },
    /// `<composite>`: total size.
    Composite { size: usize },
    /// `<enum>`: encoding type and (name, wire value).
    Enum {
        encoding: String,
        values: EnumValues,
    },
}

impl XmlType {
    fn size(&self) -> usize {
        match self {
            XmlType::Simple { primitive, length } => primitive_size(primitive) * length,
            XmlType::Composite { size } => *size,
            XmlType::Enum { encoding, .. } => primitive_size(encoding),
        }
    }
}

fn attr<'a>(n: Node<'a, '_>, name: &str) -> &'a str {
    n.attribute(name)
        .unwrap_or_else(|| panic!("<{}> lacks attribute {name}", n.tag_name().name()))
}

fn simple_type(n: Node) -> XmlType {
    XmlType::Simple {
        primitive: attr(n, "primitiveType").to_string(),
        length: n.attribute("length").map_or(1, |l| l.parse().unwrap()),
    }
}

fn elements<'a, 'i>(n: Node<'a, 'i>, tag: &'a str) -> impl Iterator<Item = Node<'a, 'i>> + 'a {
    n.children()
        .filter(move |c| c.is_element() && c.tag_name().name() == tag)
}

struct Schema<'a, 'i> {
    root: Node<'a, 'i>,
    types: HashMap<String, XmlType>,
}

fn parse<'a, 'i>(doc: &'a Document<'i>) -> Schema<'a, 'i> {
    let root = doc.root_element();
    let mut types = HashMap::new();
    for p in [
        "char", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    ] {
        types.insert(
            p.to_string(),
            XmlType::Simple {
                primitive: p.to_string(),
                length: 1,
            },
        );
    }
    for block in elements(root, "types") {
        for t in block.children().filter(|c| c.is_element()) {
            let name = attr(t, "name").to_string();
            let ty = match t.tag_name().name() {
                "type" => simple_type(t),
                "composite" => XmlType::Composite {
                    size: elements(t, "type").map(|m| simple_type(m).size()).sum(),
                },
                "enum" => {
                    let encoding = attr(t, "encodingType").to_string();
                    let values = elements(t, "validValue")
                        .map(|v| {
                            let text = v.text().unwrap_or("").trim();
                            let value = if encoding == "char" {
                                assert_eq!(text.len(), 1, "char enum value {text:?}");
                                text.as_bytes()[0]
                            } else {
                                text.parse::<u8>().unwrap()
                            };
                            (attr(v, "name").to_string(), value)
                        })
                        .collect();
                    XmlType::Enum { encoding, values }
                }
                other => panic!("unsupported type element <{other}> {name}"),
            };
            assert!(
                types.insert(name.clone(), ty).is_none(),
                "duplicate type {name}"
            );
        }
    }
    Schema { root, types }
}

/// One field as computed from the XML.
#[derive(Debug, PartialEq, Eq)]
struct XmlField {
    name: String,
    id: u16,
    offset: usize,
    size: usize,
    xml_type: String,
    optional: bool,
}

struct XmlMessage {
    name: String,
    id: u16,
    block_length: usize,
    fields: Vec<XmlField>,
}

fn messages(s: &Schema) -> Vec<XmlMessage> {
    s.root
        .children()
        .filter(|c| c.is_element() && c.tag_name().name() == "message")
        .map(|m| {
            assert_eq!(m.tag_name().namespace(), Some(SBE_NS), "sbe:message");
            let name = attr(m, "name").to_string();
            assert!(
                !attr(m, "description").trim().is_empty(),
                "{name}: description"
            );
            assert_eq!(
                elements(m, "group").count() + elements(m, "data").count(),
                0,
                "{name}: version 0 has fixed blocks only"
            );
            let mut offset = 0;
            let mut fields = Vec::new();
            for f in elements(m, "field") {
                let fname = attr(f, "name").to_string();
                let tname = attr(f, "type");
                let ty = s
                    .types
                    .get(tname)
                    .unwrap_or_else(|| panic!("{name}.{fname}: unknown type {tname}"));
                if let Some(explicit) = f.attribute("offset") {
                    assert_eq!(
                        explicit.parse::<usize>().unwrap(),
                        offset,
                        "{name}.{fname}: explicit offset differs from the computed one"
                    );
                }
                let size = ty.size();
                fields.push(XmlField {
                    name: fname,
                    id: attr(f, "id").parse().unwrap(),
                    offset,
                    size,
                    xml_type: tname.to_string(),
                    optional: f.attribute("presence") == Some("optional"),
                });
                offset += size;
            }
            if let Some(bl) = m.attribute("blockLength") {
                assert_eq!(
                    bl.parse::<usize>().unwrap(),
                    offset,
                    "{name}: blockLength attribute differs from the sum of the field sizes"
                );
            }
            XmlMessage {
                name,
                id: attr(m, "id").parse().unwrap(),
                block_length: offset,
                fields,
            }
        })
        .collect()
}

fn rust_fields(fields: &[FieldMeta]) -> Vec<(String, usize, usize, String, bool)> {
    fields
        .iter()
        .map(|f| {
            (
                f.name.to_string(),
                f.offset,
                f.size,
                f.xml_type.to_string(),
                f.optional,
            )
        })
        .collect()
}

fn xml_fields(fields: &[XmlField]) -> Vec<(String, usize, usize, String, bool)> {
    fields
        .iter()
        .map(|f| {
            (
                f.name.clone(),
                f.offset,
                f.size,
                f.xml_type.clone(),
                f.optional,
            )
        })
        .collect()
}

#[test]
fn schema_attributes_match_the_codec() {
    let text = schema_text();
    let doc = Document::parse(&text).unwrap();
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "messageSchema");
    assert_eq!(root.tag_name().namespace(), Some(SBE_NS));
    assert_eq!(attr(root, "package"), "bgw");
    assert_eq!(attr(root, "id").parse::<u16>().unwrap(), sbe::SCHEMA_ID);
    assert_eq!(
        attr(root, "version").parse::<u16>().unwrap(),
        sbe::SCHEMA_VERSION
    );
    assert_eq!(attr(root, "byteOrder"), "littleEndian");
}

#[test]
fn header_decimal_and_char_arrays_match_the_codec() {
    let text = schema_text();
    let doc = Document::parse(&text).unwrap();
    let s = parse(&doc);
    let composite = |name: &str| {
        elements(s.root, "types")
            .flat_map(|t| elements(t, "composite"))
            .find(|c| attr(*c, "name") == name)
            .unwrap_or_else(|| panic!("composite {name}"))
    };
    let parts = |name: &str| -> Vec<(String, String, Option<String>)> {
        elements(composite(name), "type")
            .map(|t| {
                (
                    attr(t, "name").to_string(),
                    attr(t, "primitiveType").to_string(),
                    t.attribute("nullValue").map(str::to_string),
                )
            })
            .collect()
    };
    let header: Vec<_> = parts("messageHeader")
        .into_iter()
        .map(|(n, p, _)| (n, p))
        .collect();
    let expected: Vec<_> = ["blockLength", "templateId", "schemaId", "version"]
        .iter()
        .map(|n| (n.to_string(), "uint16".to_string()))
        .collect();
    assert_eq!(header, expected);
    assert_eq!(s.types["messageHeader"].size(), sbe::HEADER_LEN);

    assert_eq!(
        parts("Decimal64"),
        vec![
            (
                "mantissa".to_string(),
                "int64".to_string(),
                Some(i64::MIN.to_string())
            ),
            ("exponent".to_string(), "int8".to_string(), None),
        ]
    );
    assert_eq!(
        sbe::types::DECIMAL_NULL_MANTISSA,
        i64::MIN,
        "codec null mantissa"
    );
    assert_eq!(s.types["Decimal64"].size(), sbe::types::DECIMAL64_LEN);

    for (name, len) in [("Symbol", sbe::Symbol::LEN), ("Text", sbe::Text::LEN)] {
        match s.types[name].clone() {
            XmlType::Simple { primitive, length } => {
                assert_eq!(primitive, "char", "{name}");
                assert_eq!(length, len, "{name}");
            }
            other => panic!("{name} should be a char array, is {other:?}"),
        }
    }
}

#[test]
fn every_message_matches_its_rust_table() {
    let text = schema_text();
    let doc = Document::parse(&text).unwrap();
    let s = parse(&doc);
    let xml = messages(&s);

    // Each message of the codec, by its own constants.
    let rust: Vec<(&str, u16, u16, &[FieldMeta])> = vec![
        (
            "Negotiate",
            sbe::Negotiate::TEMPLATE_ID,
            sbe::Negotiate::BLOCK_LENGTH,
            sbe::NEGOTIATE_FIELDS,
        ),
        (
            "NegotiationResponse",
            sbe::NegotiationResponse::TEMPLATE_ID,
            sbe::NegotiationResponse::BLOCK_LENGTH,
            sbe::NEGOTIATION_RESPONSE_FIELDS,
        ),
        (
            "NegotiationReject",
            sbe::NegotiationReject::TEMPLATE_ID,
            sbe::NegotiationReject::BLOCK_LENGTH,
            sbe::NEGOTIATION_REJECT_FIELDS,
        ),
        (
            "Establish",
            sbe::Establish::TEMPLATE_ID,
            sbe::Establish::BLOCK_LENGTH,
            sbe::ESTABLISH_FIELDS,
        ),
        (
            "EstablishmentAck",
            sbe::EstablishmentAck::TEMPLATE_ID,
            sbe::EstablishmentAck::BLOCK_LENGTH,
            sbe::ESTABLISHMENT_ACK_FIELDS,
        ),
        (
            "EstablishmentReject",
            sbe::EstablishmentReject::TEMPLATE_ID,
            sbe::EstablishmentReject::BLOCK_LENGTH,
            sbe::ESTABLISHMENT_REJECT_FIELDS,
        ),
        (
            "Sequence",
            sbe::Sequence::TEMPLATE_ID,
            sbe::Sequence::BLOCK_LENGTH,
            sbe::SEQUENCE_FIELDS,
        ),
        (
            "Terminate",
            sbe::Terminate::TEMPLATE_ID,
            sbe::Terminate::BLOCK_LENGTH,
            sbe::TERMINATE_FIELDS,
        ),
        (
            "NewOrderSingle",
            sbe::NewOrderSingle::TEMPLATE_ID,
            sbe::NewOrderSingle::BLOCK_LENGTH,
            sbe::NEW_ORDER_SINGLE_FIELDS,
        ),
        (
            "OrderCancelRequest",
            sbe::OrderCancelRequest::TEMPLATE_ID,
            sbe::OrderCancelRequest::BLOCK_LENGTH,
            sbe::ORDER_CANCEL_REQUEST_FIELDS,
        ),
        (
            "OrderCancelReplaceRequest",
            sbe::OrderCancelReplaceRequest::TEMPLATE_ID,
            sbe::OrderCancelReplaceRequest::BLOCK_LENGTH,
            sbe::ORDER_CANCEL_REPLACE_REQUEST_FIELDS,
        ),
        (
            "ExecutionReport",
            sbe::ExecutionReport::TEMPLATE_ID,
            sbe::ExecutionReport::BLOCK_LENGTH,
            sbe::EXECUTION_REPORT_FIELDS,
        ),
        (
            "OrderCancelReject",
            sbe::OrderCancelReject::TEMPLATE_ID,
            sbe::OrderCancelReject::BLOCK_LENGTH,
            sbe::ORDER_CANCEL_REJECT_FIELDS,
        ),
        (
            "BusinessMessageReject",
            sbe::BusinessMessageReject::TEMPLATE_ID,
            sbe::BusinessMessageReject::BLOCK_LENGTH,
            sbe::BUSINESS_MESSAGE_REJECT_FIELDS,
        ),
    ];

    let xml_by_name: BTreeMap<&str, &XmlMessage> =
        xml.iter().map(|m| (m.name.as_str(), m)).collect();
    assert_eq!(
        xml_by_name.len(),
        xml.len(),
        "duplicate message names in XML"
    );
    let ids: BTreeSet<u16> = xml.iter().map(|m| m.id).collect();
    assert_eq!(ids.len(), xml.len(), "duplicate template ids in XML");

    for (name, template_id, block_length, fields) in &rust {
        let m = xml_by_name
            .get(name)
            .unwrap_or_else(|| panic!("Rust message {name} is not in the XML"));
        assert_eq!(m.id, *template_id, "{name}: template id");
        assert_eq!(
            m.block_length, *block_length as usize,
            "{name}: block length"
        );
        assert_eq!(xml_fields(&m.fields), rust_fields(fields), "{name}: fields");
    }
    // The codec's registry (what `decode` dispatches on) is the same list, both ways.
    let rust_names: BTreeSet<&str> = rust.iter().map(|r| r.0).collect();
    let registry: BTreeSet<&str> = sbe::MESSAGES.iter().map(|m| m.name).collect();
    let xml_names: BTreeSet<&str> = xml_by_name.keys().copied().collect();
    assert_eq!(registry, rust_names, "sbe::MESSAGES vs the list above");
    assert_eq!(xml_names, registry, "XML messages vs sbe::MESSAGES");
    for meta in sbe::MESSAGES {
        let m = xml_by_name[meta.name];
        assert_eq!(m.id, meta.template_id, "{}", meta.name);
        assert_eq!(m.block_length, meta.block_length as usize, "{}", meta.name);
        assert_eq!(
            xml_fields(&m.fields),
            rust_fields(meta.fields),
            "{}",
            meta.name
        );
    }
}

#[test]
fn field_ids_are_fix_tags_or_custom() {
    let text = schema_text();
    let doc = Document::parse(&text).unwrap();
    let s = parse(&doc);
    let fix_tags: HashMap<&str, u16> = [
        ("ClOrdID", 11),
        ("OrigClOrdID", 41),
        ("OrderID", 37),
        ("ExecID", 17),
        ("TransactTime", 60),
        ("Price", 44),
        ("OrderQty", 38),
        ("Symbol", 55),
        ("Side", 54),
        ("OrdType", 40),
        ("TimeInForce", 59),
        ("ExecType", 150),
        ("OrdStatus", 39),
        ("LastQty", 32),
        ("LastPx", 31),
        ("CumQty", 14),
        ("LeavesQty", 151),
        ("AvgPx", 6),
        ("Text", 58),
        ("OrdRejReason", 103),
        ("CxlRejResponseTo", 434),
        ("CxlRejReason", 102),
        ("BusinessRejectReason", 380),
        ("RefSeqNum", 45),
        ("RefMsgType", 372),
        ("BusinessRejectRefID", 379),
    ]
    .into_iter()
    .collect();
    // The same id always means the same (name, type), and the reverse.
    let mut by_id: HashMap<u16, (String, String)> = HashMap::new();
    let mut by_field: HashMap<(String, String), u16> = HashMap::new();
    for m in messages(&s) {
        let mut seen = BTreeSet::new();
        for f in &m.fields {
            assert!(
                seen.insert(f.id),
                "{}.{}: duplicate id {}",
                m.name,
                f.name,
                f.id
            );
            match fix_tags.get(f.name.as_str()) {
                Some(&tag) => assert_eq!(f.id, tag, "{}.{}: FIX tag", m.name, f.name),
                None => assert!(
                    f.id >= 5000,
                    "{}.{}: custom id {} < 5000",
                    m.name,
                    f.name,
                    f.id
                ),
            }
            let key = (f.name.clone(), f.xml_type.clone());
            let prev = by_id.insert(f.id, key.clone());
            assert!(
                prev.is_none() || prev.as_ref() == Some(&key),
                "id {} used for {key:?} and {prev:?}",
                f.id
            );
            let prev = by_field.insert(key.clone(), f.id);
            assert!(
                prev.is_none() || prev == Some(f.id),
                "{key:?} has ids {prev:?} and {}",
                f.id
            );
        }
    }
}

#[test]
fn enums_match_the_rust_discriminants() {
    let text = schema_text();
    let doc = Document::parse(&text).unwrap();
    let s = parse(&doc);
    let xml_enums: BTreeMap<&str, (&str, &EnumValues)> = s
        .types
        .iter()
        .filter_map(|(name, t)| match t {
            XmlType::Enum { encoding, values } => {
                Some((name.as_str(), (encoding.as_str(), values)))
            }
            _ => None,
        })
        .collect();
    let rust_names: BTreeSet<&str> = sbe::ENUMS.iter().map(|e| e.name).collect();
    let xml_names: BTreeSet<&str> = xml_enums.keys().copied().collect();
    assert_eq!(xml_names, rust_names, "XML enums vs sbe::ENUMS");
    for e in sbe::ENUMS {
        let (encoding, values) = xml_enums[e.name];
        assert_eq!(encoding, e.encoding_type, "{}: encodingType", e.name);
        let rust: Vec<(String, u8)> = e.values.iter().map(|(n, v)| (n.to_string(), *v)).collect();
        assert_eq!(values, &rust, "{}: valid values", e.name);
    }
    // The registry is built from the enums' own constants; spot-check the discriminants too.
    assert_eq!(sbe::Side::Sell as u8, 2);
    assert_eq!(sbe::TimeInForce::PostOnly as u8, 8);
    assert_eq!(sbe::ExecType::PendingReplace as u8, b'E');
    assert_eq!(sbe::OrdRejReason::NotApplied as u8, 101);
    assert_eq!(sbe::BoolFlag::XML_NAME, "BooleanType");
    for e in sbe::ENUMS {
        for (name, value) in e.values {
            assert!(
                !name.is_empty() && (*value != 255 || e.encoding_type == "char"),
                "{}.{name}",
                e.name
            );
        }
    }
    for (v, (name, wire)) in sbe::Side::ALL.iter().zip(sbe::Side::VALUES) {
        assert_eq!(v.to_wire(), *wire, "{name}");
    }
}
