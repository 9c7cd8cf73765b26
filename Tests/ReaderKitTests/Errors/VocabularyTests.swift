import Testing
import ReaderKit

/// A front end says ReaderKit's hints with its own names and keeps the rest of each sentence;
/// only where it has a sentence of its own is ReaderKit's replaced.
@Suite struct VocabularyTests {
    struct Flags: Vocabulary {
        func name(for setting: String) -> String {
            [Hint.Name.offline: "--offline", Hint.Name.maximumStale: "--max-stale", Hint.Name.serviceAddress: "WIDGETS_URL"][setting] ?? setting
        }
        func ownSentence(for hint: Hint) -> String? {
            hint == .checkArguments ? "see 'widgets help'" : nil
        }
    }

    @Test func aHintKeepsReaderKitsSentenceWithTheFrontEndsNames() {
        let vocabulary = Flags()
        #expect(vocabulary.text(of: .allowOlderCopy)
                == "the cached copy is older than --max-stale allows (--offline refuses it too): a larger --max-stale shows it")
        #expect(vocabulary.text(of: [.checkConnectionAndServiceAddress, .offlineShowsCachedCopy])
                == "check your connection and the service address (WIDGETS_URL), and try again; --offline shows the cached copy")
        // A name the front end has no word for stays as the API spells it.
        #expect(vocabulary.text(of: .tryAgainThenOrAllowLongerWait) == "try again then, or allow a longer wait with RetryPolicy.maximumDelay")
    }

    @Test func aSentenceOfItsOwnReplacesReaderKitsForThatHintAlone() {
        #expect(Flags().text(of: [.checkArguments, .readCachedDataOffline]) == "see 'widgets help'; --offline reads cached data")
        #expect(Hint.checkArguments.text == "check the arguments passed: the message names the one refused")
    }

    @Test func readerKitsOwnWordsNameTheAPI() {
        #expect(Hint.offlineShowsCachedCopy.text == "LoadOptions.CacheMode.offline shows the cached copy")
        #expect(Hint.offlineShowsCachedCopy.wording.names == [Hint.Name.offline])
        let tooOld = ReaderError.cache(CacheFailure(.tooOld, path: "p", detail: ""))
        #expect(Flags().message(of: tooOld) == "the only cached copy is older than --max-stale allows")
    }

    @Test func aSyncSummaryIsOneSituationOfTheSameHints() {
        let notFound = ReaderError.status(StatusFailure(status: 404, url: "https://swapi.dev/api/people/99/"))
        #expect(notFound.hints(in: ErrorContext(isSyncSummary: true))
                == [.plain("they are gone or never existed: running the sync again will not bring them back")])
        #expect(notFound.hints() == [.checkServiceAddressNotFound])
    }
}
