//! SOFH framing (stub, being written).
