namespace Salsa.Store.Tests;

/// <summary>
/// The test executable's entry point: what xunit.v3 would generate (the Microsoft Testing
/// Platform server for <c>dotnet test</c>, the console runner otherwise), plus
/// <see cref="SqliteWriterProcess"/>'s mode, so the cross-process test needs no other program.
/// </summary>
internal static class Program
{
    public static int Main(string[] args)
    {
        if (args.Length > 0 && args[0] == SqliteWriterProcess.Verb)
        {
            return SqliteWriterProcess.RunAsync(args[1..]).GetAwaiter().GetResult();
        }

        if (args.Any(arg => arg is "--server" or "--internal-msbuild-node"))
        {
            return Xunit.MicrosoftTestingPlatform.TestPlatformTestFramework.RunAsync(args, SelfRegisteredExtensions.AddSelfRegisteredExtensions).GetAwaiter().GetResult();
        }

        return Xunit.Runner.InProc.SystemConsole.ConsoleRunner.Run(args).GetAwaiter().GetResult();
    }
}
