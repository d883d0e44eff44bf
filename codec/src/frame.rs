//! Simple Open Framing Header (FIX SOFH 1.0) framing of the strategy link.
//!
//! Every message on the strategy TCP connection is one frame:
//!
//! ```text
//! +------------------------+-------------------------+------------------------------+
//! | message length: u32 BE | encoding type: u16 BE   | SBE message (header + block) |
//! | counts the whole frame | 0xEB50 = SBE 1.0 LE     |                              |
//! +------------------------+-------------------------+------------------------------+
//!   4 bytes                  2 bytes                   message length − 6 bytes
//! ```
//!
//! Source: FIX Simple Open Framing Header, Technical Standard 1.0 (the message length includes
//! the header itself; encoding type `0xEB50` is "SBE 1.0 little-endian"). A frame must hold at
//! least the 8-byte SBE message header ([`MIN_FRAME_LEN`] = 14 bytes).
//!
//! [`peek_frame`] never allocates and checks the announced length against the configured maximum
//! before looking at anything else, so a hostile length cannot make a reader buffer gigabytes.

/// Length of the SOFH header in bytes: 4-byte big-endian message length + 2-byte big-endian
/// encoding type.
pub const SOFH_LEN: usize = 6;

/// SOFH encoding type of SBE 1.0 little-endian messages (FIX SOFH 1.0, table of encoding types).
pub const SBE_LE_ENCODING: u16 = 0xEB50;

/// Default maximum frame length in bytes (header included) accepted by [`peek_frame`] callers.
pub const DEFAULT_MAX_FRAME_LEN: usize = 4096;

/// Smallest valid frame in bytes: the SOFH header plus the 8-byte SBE message header (SBE 1.0).
pub const MIN_FRAME_LEN: usize = SOFH_LEN + 8;

/// Why a SOFH frame header was refused. Each is a protocol error: the stream cannot be resynced
/// and the connection should be closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    /// The encoding type is not [`SBE_LE_ENCODING`] (`0xEB50`).
    #[error("unsupported SOFH encoding type {0:#06x}")]
    BadEncodingType(u16),
    /// The announced frame length (bytes, header included) exceeds the configured maximum.
    #[error("frame length {len} exceeds the maximum {max}")]
    TooLong {
        /// Announced frame length in bytes, header included.
        len: usize,
        /// The maximum frame length in bytes.
        max: usize,
    },
    /// The announced frame length (bytes, header included) is below [`MIN_FRAME_LEN`] (14).
    #[error("frame length {len} is below the minimum {MIN_FRAME_LEN}")]
    TooShort {
        /// Announced frame length in bytes, header included.
        len: usize,
    },
}

/// Looks at the start of `buf` for one SOFH frame.
///
/// Returns `Ok(None)` when more bytes are needed, `Ok(Some(total_len))` when a whole frame of
/// `total_len` bytes (header included) is available at `buf[..total_len]`; the SBE payload is
/// `buf[SOFH_LEN..total_len]`.
///
/// Checks, in this order, as soon as the bytes they need are present: the announced length
/// against `max_frame_len` ([`FrameError::TooLong`]) once 4 bytes are there, before anything else;
/// the length against [`MIN_FRAME_LEN`] ([`FrameError::TooShort`]); the encoding type once 6
/// bytes are there ([`FrameError::BadEncodingType`]). Never allocates, never panics.
pub fn peek_frame(buf: &[u8], max_frame_len: usize) -> Result<Option<usize>, FrameError> {
    let Some(len_bytes) = buf.first_chunk::<4>() else {
        return Ok(None);
    };
    // u32 always fits usize on the 32/64-bit targets we build for; saturate otherwise.
    let len = usize::try_from(u32::from_be_bytes(*len_bytes)).unwrap_or(usize::MAX);
    if len > max_frame_len {
        return Err(FrameError::TooLong {
            len,
            max: max_frame_len,
        });
    }
    if len < MIN_FRAME_LEN {
        return Err(FrameError::TooShort { len });
    }
    let Some(header) = buf.first_chunk::<SOFH_LEN>() else {
        return Ok(None);
    };
    let encoding = u16::from_be_bytes([header[4], header[5]]);
    if encoding != SBE_LE_ENCODING {
        return Err(FrameError::BadEncodingType(encoding));
    }
    if buf.len() < len {
        return Ok(None);
    }
    Ok(Some(len))
}

/// Writes the 6-byte SOFH header for a frame of `total_len` bytes (header included) with encoding
/// type [`SBE_LE_ENCODING`] into `out[..SOFH_LEN]`.
///
/// # Panics
/// If `out` is shorter than [`SOFH_LEN`] or `total_len` exceeds `u32::MAX`: both are the
/// caller's bug (encoders of this crate never produce such frames).
pub fn write_sofh(out: &mut [u8], total_len: usize) {
    let Ok(len) = u32::try_from(total_len) else {
        panic!("SOFH frame length {total_len} exceeds u32::MAX");
    };
    out[..4].copy_from_slice(&len.to_be_bytes());
    out[4..SOFH_LEN].copy_from_slice(&SBE_LE_ENCODING.to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(len: u32, enc: u16, body: usize) -> Vec<u8> {
        let mut v = len.to_be_bytes().to_vec();
        v.extend_from_slice(&enc.to_be_bytes());
        v.extend(std::iter::repeat_n(0u8, body));
        v
    }

    #[test]
    fn write_then_peek() {
        let mut buf = vec![0u8; 20];
        write_sofh(&mut buf, 20);
        assert_eq!(&buf[..6], &[0, 0, 0, 20, 0xEB, 0x50]);
        assert_eq!(peek_frame(&buf, DEFAULT_MAX_FRAME_LEN), Ok(Some(20)));
        // Trailing bytes of the next frame don't matter.
        buf.extend_from_slice(&[1, 2, 3]);
        assert_eq!(peek_frame(&buf, DEFAULT_MAX_FRAME_LEN), Ok(Some(20)));
    }

    #[test]
    fn needs_more_bytes() {
        let f = frame(20, SBE_LE_ENCODING, 14);
        for cut in 0..20 {
            assert_eq!(peek_frame(&f[..cut], 4096), Ok(None), "cut at {cut}");
        }
        assert_eq!(peek_frame(&f, 4096), Ok(Some(20)));
    }

    #[test]
    fn length_checked_before_anything_else() {
        // Only the 4 length bytes are present: the oversize length is already an error.
        let f = 5000u32.to_be_bytes();
        assert_eq!(
            peek_frame(&f, 4096),
            Err(FrameError::TooLong {
                len: 5000,
                max: 4096
            })
        );
        // Oversize wins over a bad encoding type.
        let f = frame(u32::MAX, 0x1234, 0);
        assert_eq!(
            peek_frame(&f, 4096),
            Err(FrameError::TooLong {
                len: u32::MAX as usize,
                max: 4096
            })
        );
        // Exactly the maximum is fine.
        let f = frame(4096, SBE_LE_ENCODING, 4090);
        assert_eq!(peek_frame(&f, 4096), Ok(Some(4096)));
    }

    #[test]
    fn too_short() {
        for len in 0..MIN_FRAME_LEN as u32 {
            let f = frame(len, SBE_LE_ENCODING, 20);
            assert_eq!(
                peek_frame(&f, 4096),
                Err(FrameError::TooShort { len: len as usize })
            );
        }
        let f = frame(MIN_FRAME_LEN as u32, SBE_LE_ENCODING, 8);
        assert_eq!(peek_frame(&f, 4096), Ok(Some(MIN_FRAME_LEN)));
    }

    #[test]
    fn bad_encoding_type() {
        // Reported as soon as the 6 header bytes are there, whole frame or not.
        let f = frame(100, 0x5BE0, 0);
        assert_eq!(
            peek_frame(&f, 4096),
            Err(FrameError::BadEncodingType(0x5BE0))
        );
        // Big-endian: the little-endian spelling of 0xEB50 is refused.
        let f = frame(14, 0x50EB, 8);
        assert_eq!(
            peek_frame(&f, 4096),
            Err(FrameError::BadEncodingType(0x50EB))
        );
    }

    #[test]
    #[should_panic]
    fn write_sofh_short_buffer_panics() {
        let mut buf = [0u8; 5];
        write_sofh(&mut buf, 14);
    }
}
