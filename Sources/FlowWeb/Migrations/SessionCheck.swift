import FlowCore
import FlowStore

/// How this build of an app reads stored sessions, without serving them: for the check before a
/// deploy (`<app> sessions check`) and migrating ahead of time (`<app> sessions migrate`). It
/// reads a record exactly as a request would (the app's migrations, then decoding).
///
/// ```swift
/// let check = SessionCheck(app: webApp)
/// for record in try await store.sessions(after: nil, limit: 500) {
///     if case .resets(let cause, _) = check.verdict(of: record, now: now) { print(record.id.prefix(8), cause) }
/// }
/// ```
public struct SessionCheck<Step: FlowStep>: Sendable {
    /// What reading a stored session gives this build.
    public enum Verdict: Sendable, Hashable {
        /// It reads as it is.
        case readsAsIs
        /// It reads once the app's migrations it lacks are applied; `writtenBy` is the app
        /// version that stored it, when it recorded one.
        case migrates(writtenBy: String?)
        /// It cannot be read even after the migrations: a request would set it aside and start it
        /// again (`cause` as in `flowserver_session_restarts_total`).
        case resets(cause: String, reason: String)
        /// A later version of the app stored it: this build leaves it alone (`503`).
        case newerVersion(writtenBy: String?)
        /// Expired, or the marker of a deleted session: no request would read it.
        case gone
    }

    let decoder: StoredSessionDecoder
    let appVersion: String

    /// A check of stored sessions against `app` (its flows, pages, app data and migrations).
    public init(app: WebApp<Step>) {
        decoder = StoredSessionDecoder(
            registry: app.flows.registry, migrator: SessionMigrator(migrations: app.migrations))
        appVersion = app.version
    }

    /// What reading `record` at `now` (milliseconds since 1970) gives.
    public func verdict(of record: SessionRecord, now: Int64) -> Verdict {
        guard !record.isDeleted, record.expiresAt > now else { return .gone }
        do {
            let decoded = try decoder.decode(record)
            guard decoded.migrated != nil else { return .readsAsIs }
            return .migrates(writtenBy: Self.writer(of: record))
        } catch {
            if error.cause == .newerVersion { return .newerVersion(writtenBy: Self.writer(of: record)) }
            return .resets(cause: error.cause.rawValue, reason: error.reason)
        }
    }

    /// `record` as this build stores it once read: migrated, one version later (commit it with
    /// `expectedVersion` the record's); `nil` when it needs no migration or cannot be read.
    public func migrated(_ record: SessionRecord) -> SessionRecord? {
        guard let decoded = try? decoder.decode(record), let migrated = decoded.migrated else { return nil }
        var extra = decoded.extra
        extra.appVersion = appVersion
        let extraBytes = extra.jsonBytes()
        var next = record
        next.version += 1
        next.tree = migrated.tree
        next.appData = migrated.appData
        next.extra = extraBytes
        return next
    }

    /// The app version that stored `record`, when it recorded one.
    private static func writer(of record: SessionRecord) -> String? {
        (try? CompactJSONDecoder().decode(SessionExtra.self, from: record.extra))?.appVersion
    }
}
