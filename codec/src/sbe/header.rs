//! The SBE 1.0 message header, the schema's identity, the decoding errors and the field
//! metadata every message family shares (below the families and `sbe/mod.rs`).

/// Length of the SBE message header in bytes (SBE 1.0 `messageHeader` composite).
pub const HEADER_LEN: usize = 8;
/// Schema id of `codec/schema/bgw.xml` (`schemaId` of every message header).
pub const SCHEMA_ID: u16 = 1;
/// Schema version this codec writes (`version` of every message header) and the highest
/// `sinceVersion` of its fields. Version 1 added `SessionVerID` to Negotiate and
/// NegotiationResponse; version 2 the retransmission across one rollover
/// (EstablishmentAck `PreviousSessionVerID` / `PreviousSeqNo`, RetransmitRequest
/// `LastSessionVerID`, Retransmission `SessionVerID`). Any version is decoded (see
/// [`crate::sbe`], the extension rule).
pub const SCHEMA_VERSION: u16 = 2;

/// Why a received SBE payload was refused. Never a panic; each variant names its cause.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The payload ends before the message header (8 bytes) or before the end of the root block
    /// announced by `blockLength`. Lengths are in bytes, counted from the message header.
    #[error("truncated SBE message: {len} bytes, {needed} needed")]
    Truncated {
        /// Bytes the header promised (message header + block).
        needed: usize,
        /// Bytes present.
        len: usize,
    },
    /// The header's `schemaId` is not [`SCHEMA_ID`].
    #[error("wrong SBE schema id {id} (version {version})")]
    WrongSchema {
        /// The `schemaId` received.
        id: u16,
        /// The `version` received.
        version: u16,
    },
    /// The header's `templateId` is not a message of this schema (the id is carried so that
    /// the gateway can reject it with a BusinessMessageReject).
    #[error("unknown SBE template id {0}")]
    UnknownTemplate(u16),
    /// The header's `blockLength` is shorter than the template's fields of schema version 0
    /// (its `MIN_BLOCK_LENGTH`: the block without the fields added by later versions).
    #[error("block length {block_length} of template {template_id} is below {min}")]
    BlockTooShort {
        /// The template id of the message.
        template_id: u16,
        /// The `blockLength` received.
        block_length: u16,
        /// The shortest block accepted (`MIN_BLOCK_LENGTH` of the template).
        min: u16,
    },
    /// An enum field holds a value that is not in the schema.
    #[error("invalid value {value} for enum field {field}")]
    InvalidEnum {
        /// XML name of the field.
        field: &'static str,
        /// The wire value received.
        value: u8,
    },
    /// A char-array field is not valid: non-ASCII `Symbol` or non-UTF-8 `Text`.
    #[error("invalid text in field {field}")]
    InvalidText {
        /// XML name of the field.
        field: &'static str,
    },
    /// A `Decimal64` field has an exponent outside −18..=18.
    #[error("invalid decimal exponent in field {field}")]
    InvalidDecimal {
        /// XML name of the field.
        field: &'static str,
    },
    /// A required `Decimal64` field holds the null mantissa (`i64::MIN`).
    #[error("missing value in required field {field}")]
    MissingValue {
        /// XML name of the field.
        field: &'static str,
    },
    /// A repeating group's dimension or entries (`numInGroup × blockLength` bytes) go beyond
    /// the end of the payload. Lengths in bytes, counted from the group's dimension.
    #[error("truncated group {group}: {len} bytes, {needed} needed")]
    GroupTruncated {
        /// XML name of the group.
        group: &'static str,
        /// Bytes the dimension promised (dimension + entries).
        needed: usize,
        /// Bytes present from the dimension on.
        len: usize,
    },
    /// A repeating group's `blockLength` is shorter than this version's entry.
    #[error("block length {block_length} of group {group} is below {min}")]
    GroupBlockTooShort {
        /// XML name of the group.
        group: &'static str,
        /// The `blockLength` received.
        block_length: u16,
        /// The entry length this version needs.
        min: u16,
    },
    /// A repeating group holds more entries than the schema allows.
    #[error("group {group} has {count} entries, at most {max} allowed")]
    TooManyEntries {
        /// XML name of the group.
        group: &'static str,
        /// The `numInGroup` received.
        count: u16,
        /// The schema's maximum.
        max: u16,
    },
}

/// The SBE 1.0 message header (8 bytes, little endian) that starts every payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MessageHeader {
    /// Length in bytes of the root block that follows.
    pub block_length: u16,
    /// Template id of the message.
    pub template_id: u16,
    /// Schema id ([`SCHEMA_ID`] for this schema).
    pub schema_id: u16,
    /// Schema version the sender encoded with.
    pub version: u16,
}

impl MessageHeader {
    /// The header this codec writes: this schema's id and version.
    pub const fn current(block_length: u16, template_id: u16) -> MessageHeader {
        MessageHeader {
            block_length,
            template_id,
            schema_id: SCHEMA_ID,
            version: SCHEMA_VERSION,
        }
    }

    /// Reads the header at the start of `payload` (the bytes after the SOFH header), whatever
    /// its schema. Errors: [`DecodeError::Truncated`] below 8 bytes.
    pub fn read(payload: &[u8]) -> Result<MessageHeader, DecodeError> {
        let Some(h) = payload.first_chunk::<HEADER_LEN>() else {
            return Err(DecodeError::Truncated {
                needed: HEADER_LEN,
                len: payload.len(),
            });
        };
        Ok(MessageHeader {
            block_length: u16::from_le_bytes([h[0], h[1]]),
            template_id: u16::from_le_bytes([h[2], h[3]]),
            schema_id: u16::from_le_bytes([h[4], h[5]]),
            version: u16::from_le_bytes([h[6], h[7]]),
        })
    }

    /// Writes the header into `out[..HEADER_LEN]`.
    ///
    /// # Panics
    /// If `out` is shorter than [`HEADER_LEN`] (the caller's bug).
    pub fn write(&self, out: &mut [u8]) {
        out[0..2].copy_from_slice(&self.block_length.to_le_bytes());
        out[2..4].copy_from_slice(&self.template_id.to_le_bytes());
        out[4..6].copy_from_slice(&self.schema_id.to_le_bytes());
        out[6..8].copy_from_slice(&self.version.to_le_bytes());
    }
}

/// One field of a message block, as the schema-conformance test compares it with the XML.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldMeta {
    /// Field name as in the XML (`ClOrdID`).
    pub name: &'static str,
    /// Offset in bytes from the start of the root block.
    pub offset: usize,
    /// Size in bytes on the wire.
    pub size: usize,
    /// XML type name (`uint64`, `Decimal64`, `Symbol`, `Text`, or an enum's name).
    pub xml_type: &'static str,
    /// True when the field may hold its type's null value (`presence="optional"` in the XML).
    pub optional: bool,
    /// Schema version that added the field (`sinceVersion` in the XML; 0 for the original
    /// fields). A field with a non-zero version is absent from an older sender's block.
    pub since_version: u16,
}

/// The length of a block's fields of schema version 0: the offset of the first field with a
/// non-zero [`FieldMeta::since_version`], else `block_length` (for a message: its
/// `MIN_BLOCK_LENGTH`, the shortest root block accepted). Versioned fields follow all others
/// (checked at compile time by the message macros).
pub const fn min_block_length(fields: &[FieldMeta], block_length: u16) -> u16 {
    let mut i = 0;
    while i < fields.len() {
        if fields[i].since_version > 0 {
            return fields[i].offset as u16;
        }
        i += 1;
    }
    block_length
}

/// The bytes of a root block that hold known fields a sender of schema `version` wrote, given
/// its announced `block_length`: up to the first field added after `version` (SBE
/// `sinceVersion`), at most `block_length`, at most the sum of the known fields. Fields past it
/// are absent.
pub(crate) fn present_block_length(fields: &[FieldMeta], version: u16, block_length: u16) -> usize {
    let known_end = fields.last().map_or(0, |f| f.offset + f.size);
    let version_end = fields
        .iter()
        .find(|f| f.since_version > version)
        .map_or(known_end, |f| f.offset);
    usize::from(block_length).min(version_end)
}
