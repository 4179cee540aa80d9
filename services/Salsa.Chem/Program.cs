using Salsa.Chem;
using Salsa.Hosting.Host;

await SalsaServiceHost.Create<ChemService>(args).RunAsync();
