using Ingest.Cli;

return await IngestCommandLine.InvokeAsync(args);
