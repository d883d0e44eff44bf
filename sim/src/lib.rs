//! Venue simulator (being written).
