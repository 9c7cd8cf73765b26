public enum ReaderKitVersion { public static let string = "0.1.0" }
