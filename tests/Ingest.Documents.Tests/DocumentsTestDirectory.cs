using Ingest.Storage;

namespace Ingest.Documents.Tests;

/// <summary>What the document store tests need of a <see cref="TestDirectory"/>: test options and a store opened in it.</summary>
internal static class DocumentsTestDirectory
{
    extension(TestDirectory directory)
    {
        public DocumentStore Open(SyncMode sync = SyncMode.NoSyncUnsafe) => DocumentStore.Open(directory.Path, TestDirectory.Options(sync));
    }

    extension(TestDirectory)
    {
        /// <summary>Options for tests: no sync (fast) unless asked, small journal files, frequent flushing.</summary>
        public static DocumentStoreOptions Options(SyncMode sync = SyncMode.NoSyncUnsafe) => new()
        {
            Storage = new StorageOptions
            {
                SyncMode = sync,
                JournalFileSize = 1024 * 1024,
                FlushInterval = TimeSpan.FromMilliseconds(50),
                FlushThresholdPages = 512,
            },
        };
    }
}
