//! Adjudication: a phase's validated orders against a position give outcomes and the next position.
