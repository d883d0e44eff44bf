//! Schema conformance: `codec/schema/bgw.xml` (SBE 1.0 XML) against the Rust codec.
//!
//! Computes every message's field offsets, sizes and block length from the XML types (primitive
//! sizes, composites, char arrays, enums' encodingType) and compares them with the codec's
//! `XXX_FIELDS` / `BLOCK_LENGTH` / `MIN_BLOCK_LENGTH` / `TEMPLATE_ID` and every field's
//! `sinceVersion`; compares every XML enum with the Rust enum's wire values; checks that the two
//! sides list the same messages and enums.

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
    /// `sinceVersion` (0 when absent).
    since_version: u16,
}

struct XmlGroup {
    name: String,
    id: u16,
    block_length: usize,
    fields: Vec<XmlField>,
}

struct XmlMessage {
    name: String,
    id: u16,
    block_length: usize,
    /// The length of the fields of version 0 (the offset of the first `sinceVersion` field).
    min_block_length: usize,
    fields: Vec<XmlField>,
    groups: Vec<XmlGroup>,
}

/// The fields of a block (root or group entry) with offsets computed from the XML types and
/// checked against the explicit `offset` attributes; returns them and the block length.
fn block_fields(s: &Schema, owner: &str, parent: Node) -> (Vec<XmlField>, usize) {
    let mut offset = 0;
    let mut fields = Vec::new();
    for f in elements(parent, "field") {
        let fname = attr(f, "name").to_string();
        let tname = attr(f, "type");
        let ty = s
            .types
            .get(tname)
            .unwrap_or_else(|| panic!("{owner}.{fname}: unknown type {tname}"));
        if let Some(explicit) = f.attribute("offset") {
            assert_eq!(
                explicit.parse::<usize>().unwrap(),
                offset,
                "{owner}.{fname}: explicit offset differs from the computed one"
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
            since_version: f
                .attribute("sinceVersion")
                .map_or(0, |v| v.parse().unwrap()),
        });
        offset += size;
    }
    (fields, offset)
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
            assert_eq!(elements(m, "data").count(), 0, "{name}: no var data");
            // SBE 1.0: the root fields, then the groups (no field after a group).
            let kinds: Vec<&str> = m
                .children()
                .filter(|c| c.is_element())
                .map(|c| c.tag_name().name())
                .collect();
            if let Some(first_group) = kinds.iter().position(|k| *k == "group") {
                assert!(
                    kinds[first_group..].iter().all(|k| *k == "group"),
                    "{name}: a field follows a group"
                );
            }
            let (fields, offset) = block_fields(s, &name, m);
            if let Some(bl) = m.attribute("blockLength") {
                assert_eq!(
                    bl.parse::<usize>().unwrap(),
                    offset,
                    "{name}: blockLength attribute differs from the sum of the field sizes"
                );
            }
            let groups = elements(m, "group")
                .map(|g| {
                    let gname = attr(g, "name").to_string();
                    let owner = format!("{name}.{gname}");
                    assert_eq!(
                        g.attribute("dimensionType").unwrap_or("groupSizeEncoding"),
                        "groupSizeEncoding",
                        "{owner}: dimensionType"
                    );
                    assert!(
                        !attr(g, "description").trim().is_empty(),
                        "{owner}: description"
                    );
                    assert_eq!(elements(g, "group").count(), 0, "{owner}: nested groups");
                    assert_eq!(elements(g, "data").count(), 0, "{owner}: var data");
                    let (fields, len) = block_fields(s, &owner, g);
                    assert_eq!(
                        attr(g, "blockLength").parse::<usize>().unwrap(),
                        len,
                        "{owner}: blockLength attribute differs from the sum of the field sizes"
                    );
                    XmlGroup {
                        name: gname,
                        id: attr(g, "id").parse().unwrap(),
                        block_length: len,
                        fields,
                    }
                })
                .collect();
            let min_block_length = fields
                .iter()
                .find(|f| f.since_version > 0)
                .map_or(offset, |f| f.offset);
            XmlMessage {
                name,
                id: attr(m, "id").parse().unwrap(),
                block_length: offset,
                min_block_length,
                fields,
                groups,
            }
        })
        .collect()
}

/// (name, id, entry block length, fields) of a message's groups, from the XML.
fn xml_groups(m: &XmlMessage) -> Vec<(String, u16, usize, Vec<FieldTuple>)> {
    m.groups
        .iter()
        .map(|g| (g.name.clone(), g.id, g.block_length, xml_fields(&g.fields)))
        .collect()
}

/// The same from the codec's `GROUPS` table.
fn rust_groups(groups: &[sbe::GroupMeta]) -> Vec<(String, u16, usize, Vec<FieldTuple>)> {
    groups
        .iter()
        .map(|g| {
            (
                g.name.to_string(),
                g.id,
                g.block_length as usize,
                rust_fields(g.fields),
            )
        })
        .collect()
}

/// (name, offset, size, XML type, optional, sinceVersion) of one field.
type FieldTuple = (String, usize, usize, String, bool, u16);

fn rust_fields(fields: &[FieldMeta]) -> Vec<FieldTuple> {
    fields
        .iter()
        .map(|f| {
            (
                f.name.to_string(),
                f.offset,
                f.size,
                f.xml_type.to_string(),
                f.optional,
                f.since_version,
            )
        })
        .collect()
}

fn xml_fields(fields: &[XmlField]) -> Vec<FieldTuple> {
    fields
        .iter()
        .map(|f| {
            (
                f.name.clone(),
                f.offset,
                f.size,
                f.xml_type.clone(),
                f.optional,
                f.since_version,
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

/// SBE extension rule in the XML: a field with `sinceVersion` comes after every field of an
/// older version (versions never decrease along a block), no version exceeds the schema's, and
/// the fields added by version 1 are the session epoch (issue 23), those of version 2 the
/// retransmission across one rollover (issue 37 item 4).
#[test]
fn since_versions_follow_the_extension_rule() {
    let text = schema_text();
    let doc = Document::parse(&text).unwrap();
    let s = parse(&doc);
    let schema_version: u16 = attr(s.root, "version").parse().unwrap();
    let mut versioned = Vec::new();
    for m in messages(&s) {
        let mut blocks = vec![(m.name.clone(), &m.fields)];
        for g in &m.groups {
            blocks.push((format!("{}.{}", m.name, g.name), &g.fields));
        }
        for (owner, fields) in blocks {
            let mut last = 0;
            for f in fields.iter() {
                assert!(
                    f.since_version >= last,
                    "{owner}.{}: sinceVersion {} after a field of version {last}",
                    f.name,
                    f.since_version
                );
                assert!(f.since_version <= schema_version, "{owner}.{}", f.name);
                last = f.since_version;
                if f.since_version > 0 {
                    versioned.push((owner.clone(), f.name.clone(), f.since_version));
                }
            }
        }
    }
    let versioned: Vec<(&str, &str, u16)> = versioned
        .iter()
        .map(|(o, n, v)| (o.as_str(), n.as_str(), *v))
        .collect();
    assert_eq!(
        versioned,
        [
            ("Negotiate", "SessionVerID", 1),
            ("NegotiationResponse", "SessionVerID", 1),
            ("EstablishmentAck", "PreviousSessionVerID", 2),
            ("EstablishmentAck", "PreviousSeqNo", 2),
            ("RetransmitRequest", "LastSessionVerID", 2),
            ("Retransmission", "SessionVerID", 2)
        ]
    );
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

    // SBE 1.0 group dimension: blockLength u16, numInGroup u16, as the codec reads and writes.
    let dim: Vec<_> = parts("groupSizeEncoding")
        .into_iter()
        .map(|(n, p, _)| (n, p))
        .collect();
    assert_eq!(
        dim,
        vec![
            ("blockLength".to_string(), "uint16".to_string()),
            ("numInGroup".to_string(), "uint16".to_string()),
        ]
    );
    assert_eq!(
        s.types["groupSizeEncoding"].size(),
        sbe::group::GROUP_HEADER_LEN
    );

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

    // Each message of the codec, by its own constants (written out by name, independently of
    // the `sbe::MESSAGES` registry that is compared below).
    macro_rules! table {
        ($($T:ident = $F:ident),+ $(,)?) => {
            vec![$((
                stringify!($T),
                sbe::$T::TEMPLATE_ID,
                sbe::$T::BLOCK_LENGTH,
                sbe::$T::MIN_BLOCK_LENGTH,
                sbe::$F,
                sbe::$T::GROUPS,
            )),+]
        };
    }
    #[allow(clippy::type_complexity)]
    let rust: Vec<(&str, u16, u16, u16, &[FieldMeta], &[sbe::GroupMeta])> = table![
        Negotiate = NEGOTIATE_FIELDS,
        NegotiationResponse = NEGOTIATION_RESPONSE_FIELDS,
        NegotiationReject = NEGOTIATION_REJECT_FIELDS,
        Establish = ESTABLISH_FIELDS,
        EstablishmentAck = ESTABLISHMENT_ACK_FIELDS,
        EstablishmentReject = ESTABLISHMENT_REJECT_FIELDS,
        Sequence = SEQUENCE_FIELDS,
        Terminate = TERMINATE_FIELDS,
        RetransmitRequest = RETRANSMIT_REQUEST_FIELDS,
        Retransmission = RETRANSMISSION_FIELDS,
        RetransmitReject = RETRANSMIT_REJECT_FIELDS,
        NotApplied = NOT_APPLIED_FIELDS,
        NewOrderSingle = NEW_ORDER_SINGLE_FIELDS,
        OrderCancelRequest = ORDER_CANCEL_REQUEST_FIELDS,
        OrderCancelReplaceRequest = ORDER_CANCEL_REPLACE_REQUEST_FIELDS,
        ExecutionReport = EXECUTION_REPORT_FIELDS,
        OrderCancelReject = ORDER_CANCEL_REJECT_FIELDS,
        BusinessMessageReject = BUSINESS_MESSAGE_REJECT_FIELDS,
        NewOrderList = NEW_ORDER_LIST_FIELDS,
        OrderCancelReplaceList = ORDER_CANCEL_REPLACE_LIST_FIELDS,
        OrderCancelList = ORDER_CANCEL_LIST_FIELDS,
        ListStatus = LIST_STATUS_FIELDS,
        OrderMassCancelRequest = ORDER_MASS_CANCEL_REQUEST_FIELDS,
        OrderMassCancelReport = ORDER_MASS_CANCEL_REPORT_FIELDS,
        OrderMassStatusRequest = ORDER_MASS_STATUS_REQUEST_FIELDS,
        OrderMassStatusEnd = ORDER_MASS_STATUS_END_FIELDS,
        MovePositions = MOVE_POSITIONS_FIELDS,
        MovePositionsReport = MOVE_POSITIONS_REPORT_FIELDS,
        SetLeverage = SET_LEVERAGE_FIELDS,
        SetHoldMode = SET_HOLD_MODE_FIELDS,
        MaxOpenAvailableRequest = MAX_OPEN_AVAILABLE_REQUEST_FIELDS,
        AccountSettingsRequest = ACCOUNT_SETTINGS_REQUEST_FIELDS,
        AccountRequestReport = ACCOUNT_REQUEST_REPORT_FIELDS,
        PositionReport = POSITION_REPORT_FIELDS,
        AccountBalanceReport = ACCOUNT_BALANCE_REPORT_FIELDS,
        RateBudgetReport = RATE_BUDGET_REPORT_FIELDS,
        KillSwitchRequest = KILL_SWITCH_REQUEST_FIELDS,
        KillSwitchReport = KILL_SWITCH_REPORT_FIELDS,
        RateBudgetRequest = RATE_BUDGET_REQUEST_FIELDS,
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

    for (name, template_id, block_length, min_block_length, fields, groups) in &rust {
        let m = xml_by_name
            .get(name)
            .unwrap_or_else(|| panic!("Rust message {name} is not in the XML"));
        assert_eq!(m.id, *template_id, "{name}: template id");
        assert_eq!(
            m.block_length, *block_length as usize,
            "{name}: block length"
        );
        assert_eq!(
            m.min_block_length, *min_block_length as usize,
            "{name}: MIN_BLOCK_LENGTH (the fields of version 0)"
        );
        assert_eq!(xml_fields(&m.fields), rust_fields(fields), "{name}: fields");
        assert_eq!(xml_groups(m), rust_groups(groups), "{name}: groups");
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
            m.min_block_length, meta.min_block_length as usize,
            "{}",
            meta.name
        );
        assert_eq!(
            xml_fields(&m.fields),
            rust_fields(meta.fields),
            "{}",
            meta.name
        );
        assert_eq!(xml_groups(m), rust_groups(meta.groups), "{}", meta.name);
    }
    // Every issue-4 batch message has its group; new templates are 107 and above.
    for name in [
        "NewOrderList",
        "OrderCancelReplaceList",
        "OrderCancelList",
        "ListStatus",
        "MovePositions",
        "MovePositionsReport",
        "RateBudgetReport",
    ] {
        assert_eq!(xml_by_name[name].groups.len(), 1, "{name}: one group");
        assert!(xml_by_name[name].id >= 107, "{name}: template id");
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
        ("ListID", 66),
        ("Quantity", 53),
        ("LastFragment", 893),
        ("MassCancelRequestType", 530),
        ("MassCancelResponse", 531),
        ("MassCancelRejectReason", 532),
        ("TotalAffectedOrders", 533),
        ("MassStatusReqID", 584),
        ("MassStatusReqType", 585),
        ("TotNumReports", 911),
        ("PosReqID", 710),
    ]
    .into_iter()
    .collect();
    // The same id always means the same (name, type), and the reverse.
    let mut by_id: HashMap<u16, (String, String)> = HashMap::new();
    let mut by_field: HashMap<(String, String), u16> = HashMap::new();
    // FIX NoXxx tags of the groups; custom groups are 5000 and above.
    let fix_groups: HashMap<&str, u16> = [("Orders", 73)].into_iter().collect();
    let mut blocks: Vec<(String, &[XmlField])> = Vec::new();
    let all = messages(&s);
    for m in &all {
        blocks.push((m.name.clone(), &m.fields));
        for g in &m.groups {
            match fix_groups.get(g.name.as_str()) {
                Some(&tag) => assert_eq!(g.id, tag, "{}.{}: FIX NoXxx tag", m.name, g.name),
                None => assert!(g.id >= 5000, "{}.{}: custom group id", m.name, g.name),
            }
            blocks.push((format!("{}.{}", m.name, g.name), &g.fields));
        }
    }
    for (name, fields) in blocks {
        let mut seen = BTreeSet::new();
        for f in fields {
            assert!(
                seen.insert(f.id),
                "{}.{}: duplicate id {}",
                name,
                f.name,
                f.id
            );
            match fix_tags.get(f.name.as_str()) {
                Some(&tag) => assert_eq!(f.id, tag, "{}.{}: FIX tag", name, f.name),
                None => assert!(
                    f.id >= 5000,
                    "{}.{}: custom id {} < 5000",
                    name,
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
