namespace Ingest.Documents.CrashWorker;

/// <summary>
/// The expiration crash run: each run loads <see cref="RoundBatches"/> more batches of <see cref="LoadBatch"/> documents
/// e/{i} (the even ones expired at once, the odd ones never), then deletes the expired ones in batches of
/// <see cref="ExpireBatch"/> while a writer keeps putting w/{k}. Prints "loaded B", "expired N" and "written K" once each is durable. A kill at any moment
/// must leave every due document deleted with its tombstone or still stored with its expiry, and nothing else lost.
/// </summary>
internal static class ExpirationCrash
{
    public const int RoundBatches = 6;
    public const int LoadBatch = 500;
    public const int ExpireBatch = 20;
    public const string LoadSource = "load";
    public const string WriteSource = "writes";

    public static string LoadedId(int i) => FormattableString.Invariant($"e/{i}");

    public static string WrittenId(long k) => FormattableString.Invariant($"w/{k}");

    public static string LoadedBody(int i) => i % 2 == 0
        ? FormattableString.Invariant($"{{\"i\":{i},\"@metadata\":{{\"@expires\":\"2020-01-01T00:00:00Z\"}}}}")
        : FormattableString.Invariant($"{{\"i\":{i}}}");

    public static async Task RunAsync(DocumentStore store)
    {
        var output = new object();
        void Print(string line)
        {
            lock (output)
            {
                Console.Out.WriteLine(line);
                Console.Out.Flush();
            }
        }

        var batch = new WriteBatch();
        var first = store.GetSourcePosition(LoadSource, 0)?.Position.NextOffset ?? 0;
        for (var b = first; b < first + RoundBatches; b++)
        {
            batch.Clear();
            for (var i = (int)b * LoadBatch; i < (b + 1) * LoadBatch; i++)
            {
                batch.Put(LoadedId(i), "E", LoadedBody(i));
            }

            batch.SetSourcePosition(LoadSource, 0, b + 1);
            await store.WriteAsync(batch);
            Print(FormattableString.Invariant($"loaded {b}"));
        }

        var writer = Task.Run(async () =>
        {
            var put = new WriteBatch();
            for (var k = store.GetSourcePosition(WriteSource, 0)?.Position.NextOffset ?? 0; ; k++)
            {
                put.Clear();
                put.Put(WrittenId(k), "W", FormattableString.Invariant($"{{\"k\":{k}}}"));
                put.SetSourcePosition(WriteSource, 0, k + 1);
                await store.WriteAsync(put);
                Print(FormattableString.Invariant($"written {k}"));
            }
        });

        while (true)
        {
            var expired = await store.DeleteExpiredAsync(DateTime.UtcNow, ExpireBatch);
            Print(FormattableString.Invariant($"expired {expired.Deleted}"));
            if (!expired.More)
            {
                await Task.WhenAny(writer, Task.Delay(10));
            }
        }
    }
}
