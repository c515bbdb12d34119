using System.Text;

namespace Ingest.Documents.Tests.Writing;

/// <summary>
/// A batch with more than 256 KiB of JSON has its bodies read by two threads after the other checks.
/// Whatever the threads' timing, the error must be the one a check in operation order meets first,
/// and nothing of a bad batch is written.
/// </summary>
public sealed class LargeBatchValidationTests
{
    private const int Count = 600; // ~600 KiB of JSON: above the threshold for two threads

    private static readonly byte[] Padding = Encoding.UTF8.GetBytes(new string('x', 1000));

    private static byte[] Body(int n) =>
        Encoding.UTF8.GetBytes($"{{\"n\":{n},\"pad\":\"{Encoding.UTF8.GetString(Padding)}\",\"nested\":{{\"a\":[1,2,{{\"b\":null}}]}}}}");

    private static WriteBatch Batch(Func<int, (string Id, byte[] Body)> item)
    {
        var batch = new WriteBatch();
        for (var i = 0; i < Count; i++)
        {
            var (id, body) = item(i);
            batch.Put(id, "Orders", body);
        }

        return batch;
    }

    [Fact]
    public void A_valid_large_batch_is_written_whole()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        var result = store.Write(Batch(i => ($"orders/{i}", Body(i))));
        Assert.Equal(Count, result.LastEtag);
        Assert.Equal(Body(599), store.Get("ORDERS/599")!.Body.ToArray());
    }

    [Theory]
    [InlineData(37, 412)] // both bad bodies: the lower one, whichever thread reads it
    [InlineData(412, 37)]
    [InlineData(590, 31)] // the first and the last chunk
    [InlineData(0, 599)]
    public void Of_two_bad_bodies_the_first_in_order_is_reported(int first, int second)
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        for (var round = 0; round < 20; round++)
        {
            var batch = Batch(i => ($"orders/{i}", i == first ? Encoding.UTF8.GetBytes("{\"a\":") : i == second ? [0x7B, 0xFF, 0x7D] : Body(i)));
            var error = Assert.Throws<InvalidDocumentException>(() => store.Write(batch));
            Assert.Equal(Math.Min(first, second), error.OperationIndex);
        }

        Assert.Equal(0, store.LastEtag);
    }

    [Fact]
    public void A_bad_body_before_a_bad_id_is_reported_and_a_bad_id_before_a_bad_body_is()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();

        var bodyFirst = Batch(i => (i == 500 ? string.Empty : $"orders/{i}", i == 300 ? Encoding.UTF8.GetBytes("[1,2]") : Body(i)));
        var error = Assert.Throws<InvalidDocumentException>(() => store.Write(bodyFirst));
        Assert.Equal(300, error.OperationIndex);
        Assert.Contains("JSON", error.Message, StringComparison.Ordinal);

        var idFirst = Batch(i => (i == 300 ? string.Empty : $"orders/{i}", i == 500 ? Encoding.UTF8.GetBytes("[1,2]") : Body(i)));
        error = Assert.Throws<InvalidDocumentException>(() => store.Write(idFirst));
        Assert.Equal(300, error.OperationIndex);
        Assert.Contains("id", error.Message, StringComparison.Ordinal);

        // The batch can be fixed and written again: validation leaves nothing half-done.
        Assert.Equal(0, store.LastEtag);
        var fixedBatch = Batch(i => ($"orders/{i}", Body(i)));
        Assert.Equal(Count, store.Write(fixedBatch).LastEtag);
    }

    [Fact]
    public void Bodies_the_caller_validated_are_not_read_again()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        var batch = new WriteBatch();
        for (var i = 0; i < Count; i++)
        {
            // Not JSON, but promised valid: stored as given (PutValidated is internal for this reason).
            batch.PutValidated($"orders/{i}", "Orders", i == 10 ? Encoding.UTF8.GetBytes("not json") : Body(i));
        }

        Assert.Equal(Count, store.Write(batch).LastEtag);
    }
}
