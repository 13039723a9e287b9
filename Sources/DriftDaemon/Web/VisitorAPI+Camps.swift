import Foundation
import HTTPTypes
import Hummingbird
import Logging

extension VisitorAPI {
    /// `GET /api/v1/camps`: the camp directory and recent camp messages (public, like the
    /// box facts: camps announce themselves to everyone in radio range).
    func addCampRoutes(to api: RouterGroup<VisitorRequestContext>) {
        api.get("camps") { _, _ -> Response in
            guard let camps else { return try Self.json(CampListing.empty) }
            let listing: CampListing
            do {
                listing = try await camps()  // the camp service reads on its own thread
            } catch {
                logger.error("camp directory unreadable", metadata: ["error": "\(error)"])
                throw APIError(.serviceUnavailable, code: "store_unavailable", "the camp directory cannot be read right now")
            }
            return try Self.json(listing)
        }
    }
}
