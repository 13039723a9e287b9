import GRDB

/// The schema's named migrations, applied in order. A migration is never edited once released;
/// changes come as new migrations.
enum DriftMigrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-box-state") { db in
            // Small facts about the box that must survive restarts (its generated id, first start).
            try db.create(table: "boxState") { table in
                table.primaryKey("key", .text)
                table.column("value", .text).notNull()
            }
        }
        return migrator
    }
}
