namespace Ingest.Testing;

/// <summary>
/// A fresh, empty directory of one test's own under the temp folder (<c>ingest-tests/GUID</c>), deleted with everything
/// in it on dispose. Projects add what their tests need around it (a store's options, its data file) as extension
/// members beside their tests.
/// </summary>
public sealed class TestDirectory : IDisposable
{
    public TestDirectory()
    {
        Path = System.IO.Path.Combine(System.IO.Path.GetTempPath(), "ingest-tests", Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(Path);
    }

    public string Path { get; }

    /// <summary>A path inside the directory (not created).</summary>
    public string Combine(string relative) => System.IO.Path.Combine(Path, relative);

    /// <summary>
    /// Deletes the directory; a file still held open or already removed is not the test's failure, so the errors of
    /// deleting are ignored (a leftover stays under the temp folder). Safe to call twice.
    /// </summary>
    public void Dispose()
    {
        try
        {
            Directory.Delete(Path, recursive: true);
        }
        catch (IOException)
        {
        }
        catch (UnauthorizedAccessException)
        {
        }
    }
}
