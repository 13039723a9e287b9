enum DriftMediaPlaceholder {}
