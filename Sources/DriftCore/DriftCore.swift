// DriftCore
