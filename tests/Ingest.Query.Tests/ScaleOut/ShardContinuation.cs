using System.Buffers.Text;
using System.Text.Json;

namespace Ingest.Query.Tests.ScaleOut;

/// <summary>
/// A merged page's continuation: per shard, the engine's own token after the last row the merge took from that shard
/// (null before its first page) and whether the shard has nothing more. Opaque to the client, like the engine's.
/// </summary>
internal sealed record ShardContinuation(string?[] Tokens, bool[] Done)
{
    public static ShardContinuation Start(int shards) => new(new string?[shards], new bool[shards]);

    public bool AllDone => Array.TrueForAll(Done, d => d);

    public string Encode() => Base64Url.EncodeToString(JsonSerializer.SerializeToUtf8Bytes(new State(Tokens, Done)));

    public static ShardContinuation Decode(string text, int shards)
    {
        var state = JsonSerializer.Deserialize<State>(Base64Url.DecodeFromChars(text))!;
        if (state.Tokens.Length != shards || state.Done.Length != shards)
        {
            throw new InvalidOperationException($"the continuation token is for {state.Tokens.Length} shards, not {shards}");
        }

        return new ShardContinuation(state.Tokens, state.Done);
    }

    private sealed record State(string?[] Tokens, bool[] Done);
}
