package connector

import (
	"time"
)

// Hooks for the tests of package connector_test.

// PauseHolding reports whether the workers are held by a configuration pause at the
// connector's clock (its recheck still ahead).
func (c *Connector) PauseHolding() (time.Time, bool) { return c.pauses.holding(c.now()) }
