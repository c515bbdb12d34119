using Ingest.Server.Hosting;
using Microsoft.Extensions.Options;

WebApplication app;
try
{
    app = IngestHost.Build(args);
}
catch (Exception ex) when (IsStartupProblem(ex))
{
    return await CannotStartAsync(ex);
}

await using (app)
{
    try
    {
        await IngestHost.StartAsync(app);
    }
    catch (Exception ex) when (IsStartupProblem(ex))
    {
        return await CannotStartAsync(ex);
    }

    // Running: a failure from here on (serving, stopping, disposing) is not a start-up problem and
    // is not reported as one; it surfaces with its stack trace.
    await app.WaitForShutdownAsync();
}

return 0;

// A bad setting stops the service with a message that names it, not a stack trace; so does a disk too full to open the
// store at all (replaying its journal needs room in the data file). A disk merely too full to write opens read-only.
static bool IsStartupProblem(Exception ex) => ex is OptionsValidationException or InvalidOperationException || Ingest.Storage.DiskFullException.IsDiskFull(ex);

static async Task<int> CannotStartAsync(Exception ex)
{
    await Console.Error.WriteLineAsync($"Ingest cannot start: {ex.Message}");
    return 2;
}
