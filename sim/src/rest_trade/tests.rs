//! Tests of the REST trade core.
use super::*;
