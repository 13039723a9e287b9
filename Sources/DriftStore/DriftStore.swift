// DriftStore
