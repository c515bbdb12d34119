using System.Text;

namespace Ingest.Cli.Tests.Support;

/// <summary>A file with the given content, in a <see cref="TestDirectory"/> of its own that is deleted when the test is done with it.</summary>
internal sealed class TempFile : IDisposable
{
    private readonly TestDirectory _directory;

    private TempFile(TestDirectory directory, string path)
    {
        _directory = directory;
        Path = path;
    }

    public string Path { get; }

    public static TempFile Write(string content)
    {
        var directory = new TestDirectory();
        var path = directory.Combine("input.json");
        File.WriteAllText(path, content, new UTF8Encoding(encoderShouldEmitUTF8Identifier: false));
        return new TempFile(directory, path);
    }

    public void Dispose() => _directory.Dispose();
}
