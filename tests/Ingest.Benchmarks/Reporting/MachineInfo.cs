using System.Globalization;
using System.Runtime.InteropServices;

namespace Ingest.Benchmarks.Reporting;

/// <summary>What the figures were measured on, read from /proc and /sys (Linux).</summary>
internal sealed record MachineInfo(
    string Cpu,
    int Cores,
    long MemoryBytes,
    string OperatingSystem,
    string Runtime,
    string DataDirectory,
    string FileSystem,
    string Disk,
    string LoadAverage)
{
    public static MachineInfo Describe(string dataDirectory)
    {
        var fullPath = Path.GetFullPath(dataDirectory);
        var mount = FindMount(fullPath);
        return new MachineInfo(
            Cpu: ReadCpuModel(),
            Cores: Environment.ProcessorCount,
            MemoryBytes: ReadMemTotal(),
            OperatingSystem: $"{ReadOsName()}, kernel {ReadFirstLine("/proc/sys/kernel/osrelease") ?? "unknown"}",
            Runtime: $"{RuntimeInformation.FrameworkDescription} {RuntimeInformation.ProcessArchitecture}",
            DataDirectory: fullPath,
            FileSystem: mount is null ? "unknown" : $"{mount.Value.Type} on {mount.Value.MountPoint} ({mount.Value.Options})",
            Disk: mount is null ? "unknown" : DescribeDevice(mount.Value.Device),
            LoadAverage: ReadFirstLine("/proc/loadavg") ?? "unknown");
    }

    public void Print(TextWriter writer)
    {
        ArgumentNullException.ThrowIfNull(writer);
        writer.WriteLine($"machine: {Cpu}, {Cores} cores, {MemoryBytes / (1024.0 * 1024 * 1024):N1} GiB memory");
        writer.WriteLine($"os:      {OperatingSystem}, {Runtime}");
        writer.WriteLine($"data:    {DataDirectory}: {FileSystem}");
        writer.WriteLine($"disk:    {Disk}");
        writer.WriteLine($"load:    {LoadAverage} (1/5/15 min; the cores may be shared)");
    }

    private static string ReadCpuModel() =>
        ReadLines("/proc/cpuinfo")
            .Where(l => l.StartsWith("model name", StringComparison.Ordinal))
            .Select(l => l[(l.IndexOf(':', StringComparison.Ordinal) + 1)..].Trim())
            .FirstOrDefault() ?? RuntimeInformation.ProcessArchitecture.ToString();

    private static long ReadMemTotal()
    {
        var line = ReadLines("/proc/meminfo").FirstOrDefault(l => l.StartsWith("MemTotal:", StringComparison.Ordinal));
        var parts = line?.Split(' ', StringSplitOptions.RemoveEmptyEntries);
        return parts is { Length: >= 2 } && long.TryParse(parts[1], NumberStyles.Integer, CultureInfo.InvariantCulture, out var kib)
            ? kib * 1024
            : GC.GetGCMemoryInfo().TotalAvailableMemoryBytes;
    }

    private static string ReadOsName() =>
        ReadLines("/etc/os-release")
            .Where(l => l.StartsWith("PRETTY_NAME=", StringComparison.Ordinal))
            .Select(l => l["PRETTY_NAME=".Length..].Trim('"'))
            .FirstOrDefault() ?? RuntimeInformation.OSDescription;

    /// <summary>The /proc/self/mounts entry with the longest mount point containing <paramref name="path"/>.</summary>
    private static (string Device, string MountPoint, string Type, string Options)? FindMount(string path)
    {
        (string Device, string MountPoint, string Type, string Options)? best = null;
        foreach (var line in ReadLines("/proc/self/mounts"))
        {
            var fields = line.Split(' ');
            if (fields.Length < 4)
            {
                continue;
            }

            var mountPoint = fields[1].Replace("\\040", " ", StringComparison.Ordinal);
            var contains = mountPoint == "/" || path == mountPoint || path.StartsWith(mountPoint + "/", StringComparison.Ordinal);
            if (contains && (best is null || mountPoint.Length >= best.Value.MountPoint.Length))
            {
                best = (fields[0], mountPoint, fields[2], fields[3]);
            }
        }

        return best;
    }

    private static string DescribeDevice(string device)
    {
        if (!device.StartsWith("/dev/", StringComparison.Ordinal))
        {
            return $"{device} (no block device)";
        }

        var name = Path.GetFileName(device);
        var disk = name;
        var classEntry = new DirectoryInfo($"/sys/class/block/{name}");
        if (File.Exists($"/sys/class/block/{name}/partition") && classEntry.ResolveLinkTarget(returnFinalTarget: true) is { } target)
        {
            disk = Path.GetFileName(Path.GetDirectoryName(target.FullName)) ?? name;
        }

        var rotational = ReadFirstLine($"/sys/block/{disk}/queue/rotational");
        var model = ReadFirstLine($"/sys/block/{disk}/device/model")?.Trim();
        var sectors = ReadFirstLine($"/sys/block/{disk}/size");
        var size = long.TryParse(sectors, NumberStyles.Integer, CultureInfo.InvariantCulture, out var s) ? $"{s * 512 / (1024.0 * 1024 * 1024):N0} GiB" : "size unknown";
        var kind = rotational switch
        {
            "0" => "non-rotational",
            "1" => "rotational (as reported; virtual disks often say so)",
            _ => "rotational unknown",
        };
        return $"{device} on {disk}, {(string.IsNullOrEmpty(model) ? "no model string" : model)}, {size}, {kind}";
    }

    private static string? ReadFirstLine(string path) => ReadLines(path).FirstOrDefault();

    private static IEnumerable<string> ReadLines(string path)
    {
        try
        {
            return File.ReadAllLines(path);
        }
        catch (IOException)
        {
            return [];
        }
        catch (UnauthorizedAccessException)
        {
            return [];
        }
    }
}
