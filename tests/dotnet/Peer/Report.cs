// Report.cs -- `npm run peer:dotnet`'s C# half: the documents' tables and
// the speed rows measured in one process, printed, and with --record FILE
// written as JSON (library versions, .NET version, date, machine).
// Owns: that JSON's shape. Must not touch: the measurements themselves.
using System.Reflection;
using System.Runtime.InteropServices;
using System.Text.Json;

namespace Peer;

public static class Report
{
    static string Version(Type t) =>
        t.Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion.Split('+')[0]
        ?? t.Assembly.GetName().Version?.ToString() ?? "?";

    public static int Run(string[] args)
    {
        string? record = null;
        bool tablesOnly = false;
        for (int i = 0; i < args.Length; i++)
        {
            if (args[i] == "--record" && i + 1 < args.Length) record = args[++i];
            else if (args[i] == "--tables-only") tablesOnly = true;
        }
        int rounds = int.TryParse(Environment.GetEnvironmentVariable("SP_DOTNET_ROUNDS"), out var rr) ? rr : 7;
        double ms = double.TryParse(Environment.GetEnvironmentVariable("SP_DOTNET_SAMPLE_MS"), out var mm) ? mm : 40;
        string mp = Version(typeof(MessagePack.MessagePackSerializer)), mem = Version(typeof(MemoryPack.MemoryPackSerializer));
        Console.WriteLine($"MessagePack {mp}, MemoryPack {mem}, {RuntimeInformation.FrameworkDescription}, " +
            $"{RuntimeInformation.OSDescription}, {Environment.ProcessorCount} cores, server GC {System.Runtime.GCSettings.IsServerGC}");
        Console.WriteLine();
        var rows = Tables.Measure();
        Tables.Print(rows);
        var compare = Tables.Compare();
        Console.WriteLine();
        Tables.PrintCompare(compare);
        List<Speed.Result> speed = new();
        if (!tablesOnly)
        {
            Console.WriteLine();
            Console.WriteLine($"Speed: Stopwatch harness, {rounds} interleaved rounds of ~{ms} ms per row after warm-up; median and best ns/op.");
            speed = Speed.Run(rounds, ms);
            Speed.Print(speed);
        }
        if (record != null)
        {
            var doc = new
            {
                what = "MessagePack-CSharp and MemoryPack measured by tests/dotnet/Peer (npm run peer:dotnet -- --record)",
                messagePack = mp,
                memoryPack = mem,
                dotnet = RuntimeInformation.FrameworkDescription,
                os = RuntimeInformation.OSDescription,
                cores = Environment.ProcessorCount,
                date = DateTime.UtcNow.ToString("yyyy-MM-ddTHH:mm:ssZ"),
                tables = rows.Select(r => new { figure = r.Figure, document = r.Document, measured = r.Measured }),
                compare = compare.Select(c => new { entry = c.Entry, small = c.Small, big = c.Big, smallLength = c.SmallLength, bigLength = c.BigLength }),
                speed = speed.Select(s => new { workload = s.Workload, library = s.Library, mode = s.Mode, op = s.Op, bytes = s.Bytes, medianNs = Math.Round(s.MedianNs, 1), bestNs = Math.Round(s.BestNs, 1) }),
            };
            File.WriteAllText(record, JsonSerializer.Serialize(doc, new JsonSerializerOptions { WriteIndented = true, Encoder = System.Text.Encodings.Web.JavaScriptEncoder.UnsafeRelaxedJsonEscaping }) + "\n");
            Console.WriteLine($"recorded: {record}");
        }
        return 0;
    }
}
