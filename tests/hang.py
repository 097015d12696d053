"""The one timeout of the tests that wait for an event (a line printed, a file written, a
process gone, a port open): waits return as soon as the event comes, so only a hang reaches it,
however loaded the machine is. Never scaled by the machine's load, never a measure of speed."""

HANG = 300.0
