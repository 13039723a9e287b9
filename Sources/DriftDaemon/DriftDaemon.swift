// DriftDaemon
