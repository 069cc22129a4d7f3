// Program.cs -- the .NET peer's commands (tests/dotnet/run.sh and
// bench/peer-dotnet.sh call them). Owns: dispatch only.
using Peer;

if (args.Length == 0)
{
    Console.Error.WriteLine("usage: Peer corpus DIR | verify DIR FILE strict|loose | lz4 DIR | lz4-verify DIR FILE | contracts DIR | contracts-verify DIR FILE | tables | speed-bytes DIR | serve DIR | peer [--record FILE]");
    return 2;
}
return args[0] switch
{
    "corpus" => Corpus.Write(args[1]),
    "verify" => Corpus.Verify(args[1], args[2], args[3]),
    "lz4" => Lz4.Write(args[1]),
    "lz4-verify" => Lz4.Verify(args[1], args[2]),
    "contracts" => Contracts.Write(args[1]),
    "contracts-verify" => Contracts.Verify(args[1], args[2]),
    "tables" => Run(() => Tables.Print(Tables.Measure())),
    "speed-bytes" => Run(() => Speed.WriteBytes(args[1])),
    "serve" => Speed.Serve(args[1]),
    "peer" => Peer.Report.Run(args.Skip(1).ToArray()),
    _ => Usage(),
};

static int Run(Action a) { a(); return 0; }
static int Usage() { Console.Error.WriteLine("unknown command"); return 2; }
