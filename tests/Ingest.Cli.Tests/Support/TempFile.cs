using System.Text;

namespace Ingest.Cli.Tests.Support;

/// <summary>A file with the given content that is deleted when the test is done with it.</summary>
internal sealed class TempFile : IDisposable
{
    private TempFile(string path)
    {
        Path = path;
    }

    public string Path { get; }

    public static TempFile Write(string content)
    {
        var path = System.IO.Path.Combine(System.IO.Path.GetTempPath(), $"ingest-cli-test-{Guid.NewGuid():N}.json");
        File.WriteAllText(path, content, new UTF8Encoding(encoderShouldEmitUTF8Identifier: false));
        return new TempFile(path);
    }

    public void Dispose() => File.Delete(Path);
}
