using Salsa.Gateway.Cli;

// Server:  dotnet run --project gateway/Salsa.Gateway                       → http://127.0.0.1:5080/ (UI, REST), gRPC 5081
// CLI:     dotnet run --project gateway/Salsa.Gateway -- run workflows/census-indiana.yaml [--set step.parameter=value]… [--out out] [--store .salsa/salsa.db]
//          dotnet run --project gateway/Salsa.Gateway -- schema | operations [--markdown] | --help
return await GatewayCommandLine.InvokeAsync(args);
