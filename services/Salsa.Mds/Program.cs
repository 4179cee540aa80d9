using Salsa.Hosting.Host;
using Salsa.Mds;

return await SalsaServiceHost.RunAsync<MdsService>(args);
