using Salsa.Census;
using Salsa.Hosting.Host;

await SalsaServiceHost.Create<CensusService>(args).RunAsync();
