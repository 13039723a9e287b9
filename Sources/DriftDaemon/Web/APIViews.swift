import DriftCore
import DriftStore
import Foundation

/// What the API answers, shaped as `api/openapi.json` describes. Built from domain
/// values by ``VisitorAPI``; never carries a token, a token hash or a password hash.
enum APIViews {
    struct Token: Codable, Sendable { var token: String }

    struct ConditionStatus: Codable, Sendable, Equatable {
        var kind: String
        var summary: String
        var status: String
        var reason: String?
        var hint: String?
        var changesAt: Date?

        init(_ report: ConditionReport) {
            kind = report.kind.rawValue
            summary = report.summary
            switch report.outcome {
            case .satisfied: status = "satisfied"
            case .notSatisfied: status = "notSatisfied"
            case .unknown: status = "unknown"
            }
            reason = report.outcome.reason
            hint = report.hint
            changesAt = report.changesAt
        }
    }

    struct Avatar: Codable, Sendable, Equatable {
        var pattern: UInt32
        var hue: Int
    }

    struct Participant: Codable, Sendable, Equatable {
        var id: String
        var avatar: Avatar
        var label: String
        var isMe: Bool
        var isCreator: Bool
        var isBox: Bool
    }

    struct Media: Codable, Sendable, Equatable {
        var kind: String?
        var url: String
        var contentType: String
        var bytes: Int
        var width: Int?
        var height: Int?
        var durationSeconds: Double?

        init(image: ImageRef, url: String, kind: String? = nil) {
            self.kind = kind
            self.url = url
            contentType = image.format.mimeType
            bytes = image.byteCount
            width = image.width
            height = image.height
        }

        init(audio: AudioRef, url: String, kind: String? = nil) {
            self.kind = kind
            self.url = url
            contentType = audio.format.mimeType
            bytes = audio.byteCount
            durationSeconds = audio.durationSeconds
        }
    }

    struct Content: Codable, Sendable, Equatable {
        var text: String
        var image: Media?
        var whisper: Media?
    }

    struct Chat: Codable, Sendable, Equatable {
        var state: String
        var deadline: Date?
        var keeper: Participant?
        var present: [Participant]
        var lines: Int
        var me: Participant
    }

    struct Bottle: Codable, Sendable, Equatable {
        var id: String
        var shareCode: String
        var state: String
        var createdAt: Date
        var expiresAt: Date
        var oneShot: Bool
        var hint: String?
        var isMine: Bool
        var hasOpened: Bool
        var isWatched: Bool
        var hasImage: Bool
        var hasWhisper: Bool
        var conditions: [ConditionStatus]
        var distanceTravelledMeters: Double?
        var content: Content?
        var chat: Chat?
        var draft: DraftInput?
        /// In My bottles and Watching, for a bottle whose chat the caller sees: lines since they
        /// last marked it read (`POST …/read`), their own not counted.
        var unreadLines: Int?
        /// In My bottles, for the caller's own bottle: which notices they get about it.
        var notifications: Notifications?
    }

    /// A creator's notice switches for one bottle.
    struct Notifications: Codable, Sendable, Equatable {
        var firstOpen: Bool
        var participantJoined: Bool
        var linesWhileAway: Bool

        init(_ preferences: NotificationPreferences) {
            firstOpen = preferences.firstOpen
            participantJoined = preferences.participantJoined
            linesWhileAway = preferences.linesWhileAway
        }

        var preferences: NotificationPreferences {
            NotificationPreferences(firstOpen: firstOpen, participantJoined: participantJoined, linesWhileAway: linesWhileAway)
        }
    }

    struct BottleList: Codable, Sendable { var bottles: [Bottle] }

    struct Message: Codable, Sendable, Equatable {
        var id: String
        var participant: Participant
        var sentAt: Date
        var text: String
        var language: String
        var attachment: Media?
    }

    struct MessagePage: Codable, Sendable { var messages: [Message]; var older: String? }

    struct Weather: Codable, Sendable, Equatable {
        var temperatureC: Double?
        var humidityPercent: Double?
        var pressureHPa: Double?
        var observedAt: Date?

        init(_ reading: LatestReadings.Weather) {
            temperatureC = reading.celsius
            humidityPercent = reading.relativeHumidity
            pressureHPa = reading.hectopascals
            observedAt = reading.at
        }
    }

    struct GeoPoint: Codable, Sendable, Equatable { var latitude: Double; var longitude: Double }

    struct Limits: Codable, Sendable, Equatable {
        var textMaxLength = BottleContent.maximumTextLength
        var hintMaxLength: Int
        var maxConditions: Int
        var chatTextMaxLength = ChatMessage.maximumTextLength
        var imageMaxBytes = ImageRef.maximumBytes
        var imageMaxSide = ImageRef.maximumSide
        var audioMaxBytes = AudioRef.maximumBytes
        var whisperMinSeconds = AudioRef.whisperDuration.lowerBound
        var whisperMaxSeconds = AudioRef.whisperDuration.upperBound
        var defaultLifetimeSeconds: Int
        var maxLifetimeSeconds: Int
        var chatLifespanSeconds: Int
        var chatCountdownSeconds: Int
        var presenceRequestSeconds: Int
    }

    struct Box: Codable, Sendable, Equatable {
        var id: String
        var name: String
        var country: String?
        var timezone: String
        var time: Date
        var position: GeoPoint?
        var weather: Weather?
        var solarPhase: String?
        var hasPresenceButton: Bool
        var simulated: Bool
        var limits: Limits
    }

    struct Attachment: Codable, Sendable { var attachment: String; var media: Media }
    /// `presses`: how many times to press the box's button (shown to this visitor only).
    struct PresenceRequest: Codable, Sendable { var bottle: String; var requestedAt: Date; var expiresAt: Date; var presses: Int }
    struct Keeper: Codable, Sendable { var keeper: Participant; var state: String }
}

/// Request bodies.
enum APIInputs {
    struct Open: Codable, Sendable { var password: String? }
    struct Message: Codable, Sendable { var text: String; var language: String; var attachment: String? }
    struct PresenceRequest: Codable, Sendable { var bottle: String }
}
