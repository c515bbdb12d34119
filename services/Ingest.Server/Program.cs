using Ingest.Server.Hosting;
using Microsoft.Extensions.Options;

try
{
    await using var app = IngestHost.Build(args);
    await IngestHost.StartAsync(app);
    await app.WaitForShutdownAsync();
    return 0;
}
catch (Exception ex) when (ex is OptionsValidationException or InvalidOperationException)
{
    // A bad setting stops the service with a message that names it, not a stack trace.
    await Console.Error.WriteLineAsync($"Ingest cannot start: {ex.Message}");
    return 2;
}
