import DriftCore
import DriftStore
import Foundation
import Hummingbird
import Logging

extension VisitorAPI {
    func addBottleRoutes(to api: RouterGroup<VisitorRequestContext>) {
        // Every bottle here: locked ones as teasers (hint and conditions, never content: a
        // hint means something only to people who can see it), openable ones, live chats one
        // may join, the caller's own and opened ones.
        api.get("bottles") { request, _ -> Response in
            let caller = try await visitor(request)
            let at = now()
            let context = await processor.context(at: at)
            let live = (try await processor.read { try $0.bottles(in: [.locked, .openable, .active, .dying]) })
            // Evaluations at most 2 s old, shared by every list (the processor keeps them).
            let evaluations = await processor.evaluations(of: live, maxAge: 2, now: at)
            let watched = Set(try await processor.read { try $0.watches(by: caller) }.map(\.bottle))
            // Participants, line counts, survivals and who is present for every listed chat at once.
            let facts = await listFacts(for: live)
            var views: [APIViews.Bottle] = []
            for bottle in live {
                let mine = bottle.isCreator(caller)
                switch bottle.state {
                case .active, .dying:
                    // A one-shot bottle's chat belongs to its one opener (and creator).
                    if bottle.isOneShot, !mine,
                       !(await hasOpened(bottle, by: caller, participants: facts.participants[bottle.id] ?? [])) { continue }
                default:
                    break
                }
                views.append(await view(bottle, for: caller, context: context, watched: watched, evaluation: evaluations[bottle.id],
                                        facts: facts))
            }
            return try Self.json(APIViews.BottleList(bottles: views))
        }

        api.post("bottles") { request, context -> Response in
            let caller = try await visitor(request)
            var request = request
            let input = try await RequestBodyReader.json(DraftInput.self, from: &request, limit: limits.jsonBodyBytes)
            try limit("new bottles", token: caller, rule: limits.createPerToken, client: context.clientAddress, clientRule: limits.createPerClient)
            let hashing = processor.passwordHashing
            let checked = try input.draft(existing: nil, maximumConditions: policy.maximumConditions, standIn: hashing.standIn)
            let destination = try input.destination()
            let at = now()
            let settings = processor.settings
            let origin = BottleOrigin(boxID: settings.boxID, position: await processor.ambient.position(at: at, settings: settings),
                                      countryCode: settings.country)
            if let destination {
                return try await sendOverMesh(checked, to: destination, origin: origin, creator: caller, at: at)
            }
            // Everything the store will check is checked before the one costly step, the hash.
            let id = BottleID.make(at: at)
            _ = try Bottle.create(checked.draft, id: id, shareCode: ShareCode.random(), origin: origin, creator: caller, now: at, policy: policy)
            let draft = try await checked.hashed(on: hashing)
            let created = (try await processor.withStore { try $0.create(draft, id: id, origin: origin, creator: caller, now: at, policy: policy) })
            logger.info("bottle dropped", metadata: ["bottle": "\(created.id)", "conditions": "\(created.conditions.count)"])
            await processor.refresh(created.id, now: at)
            let stored = (try await processor.read { try $0.bottle(created.id) }) ?? created
            return try Self.json(await view(stored, for: caller, context: processor.context(at: at)), status: .created)
        }

        api.get("bottles/:id") { request, context -> Response in
            let caller = try await visitor(request)
            let bottle = try await bottle(context.parameters.get("id"))
            return try Self.json(await view(bottle, for: caller, context: processor.context(at: now())))
        }

        api.patch("bottles/:id") { request, context -> Response in
            let caller = try await visitor(request)
            let bottle = try await bottle(context.parameters.get("id"))
            var request = request
            let input = try await RequestBodyReader.json(DraftInput.self, from: &request, limit: limits.jsonBodyBytes)
            try requireEditable(bottle, by: caller)
            try limit("bottle changes", token: caller, rule: limits.createPerToken, client: context.clientAddress, clientRule: limits.createPerClient)
            let hashing = processor.passwordHashing
            let checked = try input.draft(existing: bottle, maximumConditions: policy.maximumConditions, standIn: hashing.standIn)
            // The edit the store will make, tried on a copy before the one costly step, the hash.
            try Self.checkEdit(of: bottle, with: checked.draft, by: caller, at: now(), policy: policy)
            let draft = try await checked.hashed(on: hashing)
            let edited = (try await processor.withStore { try $0.edit(bottle.id, with: draft, by: caller, now: now(), policy: policy) })
            await removeFiles(edited.unusedMedia)
            await processor.refresh(bottle.id, now: now())
            let stored = (try await processor.read { try $0.bottle(bottle.id) }) ?? edited.bottle
            return try Self.json(await view(stored, for: caller, context: processor.context(at: now())))
        }

        api.delete("bottles/:id") { request, context -> Response in
            let caller = try await visitor(request)
            let bottle = try await bottle(context.parameters.get("id"))
            try requireEditable(bottle, by: caller)
            try await processor.retire(bottle.id, by: caller, at: now())
            logger.info("bottle retired by its creator", metadata: ["bottle": "\(bottle.id)"])
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }

        api.post("bottles/:id/open") { request, context -> Response in
            let caller = try await visitor(request)
            var request = request
            let input = try await RequestBodyReader.json(APIInputs.Open.self, from: &request, limit: limits.jsonBodyBytes, allowEmpty: true)
            let bottle = try await bottle(context.parameters.get("id"))
            try limit("open attempts", token: caller, rule: limits.openPerToken, client: context.clientAddress, clientRule: limits.openPerClient)
            let at = now()
            let decision = try await processor.open(bottle.id, visitor: caller, password: input.password,
                                                    client: context.clientAddress, at: at)
            guard decision.isOpen else {
                let details = JSONValue.object([
                    "conditions": .array(decision.reports.map { .fragment(APIJSON.string(APIViews.ConditionStatus($0))) }),
                    "reasons": .array(decision.reasons.map(JSONValue.string)),
                ])
                if let wait = decision.retryAfter {
                    var error = APIError.rateLimited("password attempts", retryAfter: wait)
                    if case .object(var merged) = error.details, case .object(let extra) = details {
                        merged.merge(extra) { current, _ in current }
                        error.details = .object(merged)
                    }
                    throw error
                }
                throw APIError(.forbidden, code: "locked", decision.reasons.joined(separator: "; "), details: details)
            }
            await hub.openedOverHTTP(processor.participant(caller, in: bottle.id), in: bottle.id)
            let opened = (try await processor.read { try $0.bottle(bottle.id) }) ?? bottle
            return try Self.json(await view(opened, for: caller, context: processor.context(at: at)))
        }

        api.put("bottles/:id/watch") { request, context -> Response in
            let caller = try await visitor(request)
            let bottle = try await bottle(context.parameters.get("id"))
            try limit("watches", token: caller, rule: limits.actionPerToken, client: nil)
            _ = (try await processor.withStore { try $0.watch(bottle.id, by: caller, at: now()) })
            return try Self.json(await view(bottle, for: caller, context: processor.context(at: now())))
        }

        api.delete("bottles/:id/watch") { request, context -> Response in
            let caller = try await visitor(request)
            let bottle = try await bottle(context.parameters.get("id"))
            (try await processor.withStore { try $0.unwatch(bottle.id, by: caller) })
            return try Self.json(await view(bottle, for: caller, context: processor.context(at: now())))
        }

        api.post("bottles/:id/keep-alive") { request, context -> Response in
            let caller = try await visitor(request)
            let bottle = try await bottle(context.parameters.get("id"))
            guard await hasOpened(bottle, by: caller) else { throw APIError.forbidden("open this bottle before keeping its chat alive") }
            try limit("keep-alive claims", token: caller, rule: limits.actionPerToken, client: nil)
            let who = processor.participant(caller, in: bottle.id)
            var wasDying = false
            if case .countingDown? = await processor.survival(of: bottle.id)?.phase { wasDying = true }
            try await processor.claimKeepAlive(who, in: bottle.id, at: now())
            // A rescue is announced with the processor's `rescued` event; a claim in a live chat here.
            if !wasDying { await hub.keeperClaimed(who, in: bottle.id) }
            let participants = (try? await processor.read { try $0.participants(of: bottle.id) }) ?? []
            let viewer = ParticipantViewer(bottle: bottle, viewer: who, processor: processor, participants: participants)
            let state = (try? await processor.read { try $0.bottle(bottle.id) })?.state.rawValue ?? bottle.state.rawValue
            return try Self.json(APIViews.Keeper(keeper: viewer.view(who), state: state))
        }
    }

    /// The creator may change the bottle (before its first open).
    func requireEditable(_ bottle: Bottle, by caller: TokenHash) throws {
        guard bottle.isCreator(caller) else { throw APIError.forbidden("only the bottle's creator may change it") }
        guard bottle.firstOpenedAt == nil, bottle.state == .locked || bottle.state == .openable else {
            throw APIError.conflict("the bottle has been opened; it can no longer be changed")
        }
    }

    /// Throws what ``DriftStore/BottleStore/edit(_:with:by:now:policy:)`` would throw for this
    /// edit (validation, lifecycle), without storing or hashing anything.
    static func checkEdit(of bottle: Bottle, with draft: BottleDraft, by caller: TokenHash, at: Date, policy: BottlePolicy) throws {
        var preview = bottle
        do throws(BottleEditError) { try preview.edit(draft, by: caller, now: at, policy: policy) } catch {
            switch error {
            case .lifecycle(let lifecycle): throw BottleStoreError.lifecycle(bottle.id, lifecycle)
            case .invalid(let invalid): throw invalid
            }
        }
    }

    func removeFiles(_ paths: [MediaPath]) async {
        let media = media
        for path in paths {
            do { try await io.run { try media.remove(path) } } catch {
                logger.warning("cannot remove replaced media", metadata: ["path": "\(path)", "error": "\(error)"])
            }
        }
    }
}
