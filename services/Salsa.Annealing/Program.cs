using Salsa.Annealing;
using Salsa.Hosting.Host;

await SalsaServiceHost.Create<AnnealingService>(args).RunAsync();
