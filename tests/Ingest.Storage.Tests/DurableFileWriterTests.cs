using System.Text;

namespace Ingest.Storage.Tests;

/// <summary>
/// Each step of a durable replace, through the writer's seam: a failure before the rename keeps the old content and
/// removes the temporary file, the rename is followed by a directory sync, and nothing is left beside the target.
/// </summary>
public sealed class DurableFileWriterTests
{
    [Fact]
    public void Commit_syncs_the_temporary_file_renames_it_over_the_target_and_then_syncs_the_directory()
    {
        using var dir = new TestDirectory();
        var path = OldFile(dir);
        var steps = new List<DurableFileStep>();

        using (var file = DurableFileWriter.Create(path))
        {
            file.StepCompleted = step =>
            {
                steps.Add(step);
                Assert.Equal(step == DurableFileStep.TemporaryFileSynced ? "old" : "new", File.ReadAllText(path));
            };
            file.Stream.Write("new"u8);
            file.Commit();
        }

        // The directory sync is Linux's (fsync on the directory); elsewhere the rename is the last step.
        DurableFileStep[] expected = OperatingSystem.IsLinux()
            ? [DurableFileStep.TemporaryFileSynced, DurableFileStep.Renamed, DurableFileStep.DirectorySynced]
            : [DurableFileStep.TemporaryFileSynced, DurableFileStep.Renamed];
        Assert.Equal(expected, steps);
        Assert.Equal("new", File.ReadAllText(path));
        Assert.Equal(new[] { path }, Directory.GetFiles(dir.Path));
    }

    [Fact]
    public void A_failure_after_the_temporary_file_is_synced_keeps_the_old_content_and_deletes_the_temporary_file()
    {
        using var dir = new TestDirectory();
        var path = OldFile(dir);
        string temporary;

        using (var file = DurableFileWriter.Create(path))
        {
            temporary = file.TemporaryPath;
            file.StepCompleted = step => throw new IOException($"injected after {step}");
            file.Stream.Write("new"u8);

            var thrown = Assert.Throws<IOException>(file.Commit);

            Assert.Equal($"injected after {DurableFileStep.TemporaryFileSynced}", thrown.Message);
            Assert.Equal("new", File.ReadAllText(temporary));
            Assert.Equal("old", File.ReadAllText(path));
        }

        Assert.False(File.Exists(temporary));
        Assert.Equal("old", File.ReadAllText(path));
    }

    [Fact]
    public void A_failure_while_writing_keeps_the_old_content_and_deletes_the_temporary_file()
    {
        using var dir = new TestDirectory();
        var path = OldFile(dir);

        var thrown = Assert.Throws<InvalidOperationException>(WriteHalfAndFail);

        Assert.Equal("the serializer failed", thrown.Message);
        Assert.Equal("old", File.ReadAllText(path));
        Assert.Equal(new[] { path }, Directory.GetFiles(dir.Path));

        void WriteHalfAndFail()
        {
            using var file = DurableFileWriter.Create(path);
            file.Stream.Write("half of the n"u8);
            throw new InvalidOperationException("the serializer failed");
        }
    }

    [Fact]
    public void A_failure_after_the_rename_leaves_the_new_content_and_no_temporary_file()
    {
        using var dir = new TestDirectory();
        var path = OldFile(dir);
        var steps = new List<DurableFileStep>();

        using (var file = DurableFileWriter.Create(path))
        {
            file.StepCompleted = step =>
            {
                steps.Add(step);
                if (step == DurableFileStep.Renamed)
                {
                    throw new IOException("injected after the rename");
                }
            };
            file.Stream.Write("new"u8);

            Assert.Throws<IOException>(file.Commit);
        }

        Assert.Equal(new[] { DurableFileStep.TemporaryFileSynced, DurableFileStep.Renamed }, steps);
        Assert.Equal("new", File.ReadAllText(path));
        Assert.Equal(new[] { path }, Directory.GetFiles(dir.Path));
    }

    [Fact]
    public void Flush_lets_the_content_be_read_back_before_the_target_is_replaced()
    {
        using var dir = new TestDirectory();
        var path = Path.Combine(dir.Path, "nightly.backup");
        using var file = DurableFileWriter.Create(path, ".partial");
        file.Stream.Write("checked before it counts"u8);

        file.Flush();

        Assert.Equal(path + ".partial", file.TemporaryPath);
        Assert.Equal("checked before it counts", File.ReadAllText(file.TemporaryPath, Encoding.UTF8));
        Assert.False(File.Exists(path));
        Assert.Throws<InvalidOperationException>(() => file.Stream);

        file.Commit();

        Assert.Equal("checked before it counts", File.ReadAllText(path, Encoding.UTF8));
        Assert.False(File.Exists(file.TemporaryPath));
    }

    /// <summary>The file the writer replaces, holding "old".</summary>
    private static string OldFile(TestDirectory dir)
    {
        var path = Path.Combine(dir.Path, "state.json");
        File.WriteAllText(path, "old");
        return path;
    }
}
