using System.Text.Json.Nodes;
using Salsa.Gateway;
using Salsa.Gateway.Cli;
using Salsa.Gateway.Services;
using Salsa.Hosting.Host;
using Spectre.Console;

// Server:  dotnet run --project gateway/Salsa.Gateway                       → http://127.0.0.1:5080/ (UI, REST), gRPC 5081
// CLI:     dotnet run --project gateway/Salsa.Gateway -- run workflows/census-indiana.yaml [--set step.parameter=value]… [--out out] [--store .salsa/salsa.db]
if (args is ["run", ..])
{
    if (args.Length < 2 || args[1].StartsWith("--", StringComparison.Ordinal))
    {
        Console.Error.WriteLine("usage: Salsa.Gateway run <workflow.yaml | workflow name> [--set step.parameter=value]… [--out DIR] [--store SQLITE_PATH]");
        return 2;
    }

    var parameters = new Dictionary<string, JsonNode?>(StringComparer.Ordinal);
    var settings = new Dictionary<string, string?>(StringComparer.Ordinal);
    var output = "out";
    for (var i = 2; i < args.Length; i++)
    {
        switch (args[i])
        {
            case "--set" when i + 1 < args.Length && args[i + 1].IndexOf('=', StringComparison.Ordinal) is var eq and > 0:
                var value = args[++i][(eq + 1)..];
                parameters[args[i][..eq]] = ParseValue(value);
                break;
            case "--out" when i + 1 < args.Length:
                output = args[++i];
                break;
            case "--store" when i + 1 < args.Length:
                settings["Store:SqlitePath"] = args[++i];
                break;
            default:
                Console.Error.WriteLine($"Unknown or incomplete option '{args[i]}'.");
                return 2;
        }
    }

    using var cancellation = new CancellationTokenSource();
    Console.CancelKeyPress += (_, e) =>
    {
        e.Cancel = true;
        cancellation.Cancel();
    };
    return await RunCommand.RunAsync(new RunCommand.Options(args[1], parameters, output, settings), AnsiConsole.Console, cancellation.Token);
}

var app = SalsaServiceHost.Create<GatewayService>(args);
await app.StartAsync();
if (app.Configuration.GetValue("Gateway:WarmStart", true))
{
    // The embedded services start now rather than at the first run's first call.
    await app.Services.GetRequiredService<ServiceDirectory>().StartAllAsync(app.Lifetime.ApplicationStopping);
}

await app.WaitForShutdownAsync();
return 0;

// --set values are JSON when they parse (10, true, [1,2]), else strings (us, indiana).
static JsonNode? ParseValue(string text)
{
    try
    {
        return JsonNode.Parse(text);
    }
    catch (System.Text.Json.JsonException)
    {
        return JsonValue.Create(text);
    }
}
