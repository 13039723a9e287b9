import DriftCore
import DriftStore
import Foundation
import Hummingbird
import Logging

extension VisitorAPI {
    func addVisitorRoutes(to api: RouterGroup<VisitorRequestContext>) {
        // A new device token; only its hash is kept.
        api.post("visitors") { request, context -> Response in
            try limit("new device tokens", token: nil, rule: limits.newVisitor, client: context.clientAddress, clientRule: limits.newVisitor)
            let token = DeviceToken.generate()
            let (visitors, hash, instant) = (visitors, token.hash, now())
            try await io.run { try visitors.register(hash, at: instant) }
            return try Self.json(APIViews.Token(token: token.encoded), status: .created)
        }

        api.get("box") { request, _ -> Response in
            _ = try await visitor(request)
            return try Self.json(await boxView())
        }

        api.get("my/bottles") { request, _ -> Response in
            let caller = try await visitor(request)
            let context = await processor.context(at: now())
            let mine = (try await processor.read { try $0.bottles(createdBy: caller) }).filter { $0.state != .expired }
            let watched = Set(try await processor.read { try $0.watches(by: caller) }.map(\.bottle))
            var views: [APIViews.Bottle] = []
            for bottle in mine { views.append(await view(bottle, for: caller, context: context, watched: watched)) }
            return try Self.json(APIViews.BottleList(bottles: await withReadFacts(views, for: caller)))
        }

        api.get("my/watches") { request, _ -> Response in
            let caller = try await visitor(request)
            let context = await processor.context(at: now())
            let watches = (try await processor.read { try $0.watches(by: caller) })
            let watched = Set(watches.map(\.bottle))
            var views: [APIViews.Bottle] = []
            for watch in watches {
                guard let bottle = (try await processor.read { try $0.bottle(watch.bottle) }), bottle.state != .expired else { continue }
                views.append(await view(bottle, for: caller, context: context, watched: watched))
            }
            return try Self.json(APIViews.BottleList(bottles: await withReadFacts(views, for: caller)))
        }

        // Pressing the box's presence button the answered number of times proves the caller's
        // presence (docs/conditions.md: a count only this caller's page shows).
        api.post("presence-requests") { request, context -> Response in
            let caller = try await visitor(request)
            var request = request
            let input = try await RequestBodyReader.json(APIInputs.PresenceRequest.self, from: &request, limit: limits.jsonBodyBytes)
            let bottle = try await bottle(input.bottle)
            guard processor.settings.hasPresenceButton else {
                throw APIError.invalid(field: "bottle", problem: "this box has no presence button")
            }
            try limit("presence requests", token: caller, rule: limits.actionPerToken, client: context.clientAddress,
                      clientRule: limits.presencePerClient)
            let at = now()
            let waiting: (presses: Int, until: Date)
            do throws(PresenceBinder.Busy) {
                waiting = try await processor.requestPresence(visitor: caller, bottle: bottle.id, at: at)
            } catch {
                throw APIError.rateLimited("presence checks (every press count is taken by visitors waiting at the box)",
                                           retryAfter: error.retryAfter)
            }
            return try Self.json(APIViews.PresenceRequest(bottle: bottle.id.description, requestedAt: at, expiresAt: waiting.until,
                                                          presses: waiting.presses), status: .accepted)
        }
    }

    func boxView() async -> APIViews.Box {
        let instant = now()
        let context = await processor.context(at: instant)
        let position = await processor.ambient.position(at: instant, settings: processor.settings)
        let weather = box.weather().map(APIViews.Weather.init)
        let settings = processor.settings
        let limits = APIViews.Limits(
            hintMaxLength: policy.maximumHintLength, maxConditions: policy.maximumConditions,
            defaultLifetimeSeconds: Int(policy.defaultLifetime), maxLifetimeSeconds: Int(policy.maximumLifetime),
            chatLifespanSeconds: Int(settings.survival.lifespan), chatCountdownSeconds: Int(settings.survival.countdown),
            presenceRequestSeconds: Int(PresenceBinder().requestLifetime))
        return APIViews.Box(
            id: box.id, name: box.name, country: box.country, timezone: box.timeZone.identifier, time: instant,
            position: position.map { APIViews.GeoPoint(latitude: $0.latitude, longitude: $0.longitude) },
            weather: weather, solarPhase: context.solarPosition().map { SolarCalculator.phase(at: instant, for: $0).rawValue },
            hasPresenceButton: settings.hasPresenceButton, simulated: box.simulated, limits: limits)
    }
}
