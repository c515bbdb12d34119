using Ingest.Storage;

namespace Ingest.Storage.Tests;

/// <summary>What the storage tests need of a <see cref="TestDirectory"/>: the files of a store in it, and test options.</summary>
internal static class StorageTestDirectory
{
    extension(TestDirectory directory)
    {
        public string DataFile => directory.Combine("data.ingest");

        public string[] JournalFiles
        {
            get
            {
                var files = Directory.GetFiles(directory.Path, "journal.*");
                Array.Sort(files, StringComparer.Ordinal);
                return files;
            }
        }
    }

    extension(TestDirectory)
    {
        /// <summary>Options for tests: no sync (fast), small journal files of one size, and optionally no background flushing.</summary>
        public static StorageOptions Options(bool backgroundFlush = true, SyncMode sync = SyncMode.NoSyncUnsafe) => new()
        {
            SyncMode = sync,
            JournalFileSize = 256 * 1024,
            InitialJournalFileSize = 256 * 1024,
            BackgroundFlush = backgroundFlush,
            FlushInterval = TimeSpan.FromMilliseconds(50),
            FlushThresholdPages = 256,
        };
    }
}
