// DriftConfig
