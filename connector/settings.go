package connector

import "github.com/razorpay-erpnext/razorpay-erpnext/connector/config"

// Config is the configuration the core runs with: config.Config, read, expanded and validated
// at the edge by connector/config (Load, Parse). The core never parses one.
type Config = config.Config

// Duration is a configured duration (config.Duration).
type Duration = config.Duration
