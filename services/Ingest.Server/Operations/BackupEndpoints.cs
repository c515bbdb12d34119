using System.Globalization;
using Ingest.Query;
using Ingest.Server.Hosting;
using Ingest.Server.Hosting.Http.Security;
using Ingest.Server.Indexes;
using Ingest.Storage.Backup;

namespace Ingest.Server.Operations;

/// <summary>
/// <c>POST /admin/backup</c>: streams a hot backup of the whole data directory (a <see cref="BackupWriter"/>
/// stream, restored by <c>ingest restore</c>). The store and every index build
/// are snapshotted in one moment (<see cref="Ingest.Indexing.Runtime.IndexSet.BeginBackupAsync"/>) and copied
/// from those snapshots while ingestion and indexing go on; the remaining files (ETL tasks, saved Grafana queries,
/// the automatic indexes' last-used times) are copied as they are. A failure after the first byte aborts the
/// response, so the client sees a cut-short body, never a backup that looks complete.
/// </summary>
public static partial class BackupEndpoints
{
    public const string ContentType = "application/vnd.ingest.backup";

    /// <summary>Response header naming the store transaction the backup holds.</summary>
    public const string TransactionHeader = "X-Ingest-Store-Transaction";

    public static IEndpointRouteBuilder MapBackupEndpoints(this IEndpointRouteBuilder endpoints)
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        endpoints.MapPost("/admin/backup", BackupAsync).RequireScope(ApiScopes.Admin);
        return endpoints;
    }

    private static async Task BackupAsync(HttpContext context, DataDirectory data, QueryEngine engine, ILogger<BackupWriter> logger, CancellationToken ct)
    {
        using var snapshot = await engine.Indexes.BeginBackupAsync(ct).ConfigureAwait(false);
        var transaction = snapshot.Store.TransactionId;
        context.Response.ContentType = ContentType;
        context.Response.Headers[TransactionHeader] = transaction.ToString(CultureInfo.InvariantCulture);
        context.Response.Headers.ContentDisposition = $"attachment; filename=\"ingest-{DateTime.UtcNow:yyyyMMdd-HHmmss}.backup\"";
        var backup = new BackupWriter(context.Response.Body);
        await snapshot.WriteToAsync(backup, StoreRegistration.StoreFolder, QueryEngine.IndexesFolder, ct).ConfigureAwait(false);

        var (_, files) = BackupSources.Scan(data.FullPath, path => path is DataDirectory.LockFileName or StoreRegistration.StoreFolder or QueryEngine.IndexesFolder);
        foreach (var path in files)
        {
            byte[] content;
            try
            {
                content = await File.ReadAllBytesAsync(Path.Combine(data.FullPath, path), ct).ConfigureAwait(false);
            }
            catch (FileNotFoundException)
            {
                continue; // deleted since the scan (an ETL task's error log cleared): not part of the service any more
            }

            await backup.AddFileAsync(path, content, ct).ConfigureAwait(false);
        }

        await backup.CompleteAsync(ct).ConfigureAwait(false);
        LogBackup(logger, transaction, snapshot.Indexes.Count, files.Count, backup.BytesWritten);
    }

    [LoggerMessage(Level = LogLevel.Information, Message = "Backup sent: store transaction {Transaction}, {Indexes} index build(s), {Files} file(s), {Bytes} bytes")]
    private static partial void LogBackup(ILogger logger, long transaction, int indexes, int files, long bytes);
}
