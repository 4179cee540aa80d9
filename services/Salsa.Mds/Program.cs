using Salsa.Mds;
using Salsa.Hosting.Host;

await SalsaServiceHost.Create<MdsService>(args).RunAsync();
