import GRDB

extension DriftMigrations {
    /// The camp directory (`docs/camps.md`): one row per camp heard (by the node id of its
    /// box), and a bounded list of recent camp chat lines, requests, events and emergencies.
    /// Instants are whole milliseconds since 1970; positions are 1e-5 degrees.
    static func createCampTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE camps (
                node_id INTEGER PRIMARY KEY CHECK (node_id BETWEEN 0 AND 4294967295),
                name TEXT NOT NULL CHECK (length(name) >= 1),
                lat_e5 INTEGER CHECK (lat_e5 BETWEEN -9000000 AND 9000000),
                lon_e5 INTEGER CHECK (lon_e5 BETWEEN -18000000 AND 18000000),
                members INTEGER NOT NULL CHECK (members BETWEEN 0 AND 65535),
                note TEXT NOT NULL,
                first_seen INTEGER NOT NULL,
                last_seen INTEGER NOT NULL CHECK (last_seen >= first_seen),
                last_kind TEXT NOT NULL
            );
            CREATE INDEX camps_last_seen ON camps(last_seen);
            """)
        try db.execute(sql: """
            CREATE TABLE camp_messages (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                node_id INTEGER NOT NULL CHECK (node_id BETWEEN 0 AND 4294967295),
                camp TEXT NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN ('chat', 'request', 'event', 'emergency')),
                detail TEXT NOT NULL,
                text TEXT NOT NULL,
                lat_e5 INTEGER,
                lon_e5 INTEGER,
                event_start INTEGER,
                event_minutes INTEGER,
                received_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL CHECK (expires_at >= received_at),
                from_me INTEGER NOT NULL CHECK (from_me IN (0, 1))
            );
            CREATE INDEX camp_messages_received ON camp_messages(received_at);
            CREATE INDEX camp_messages_expires ON camp_messages(expires_at);
            """)
    }
}
